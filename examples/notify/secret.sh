# Sourced by the example hooks (not run by itself).
#
# secret NAME: NAME from the environment, else the first line of the file
# NAME_FILE names, which must lie outside the project directory (the hook
# runs there): a secret is never a line committed with the repository.
secret() {
	eval "value=\${$1:-} file=\${$1_FILE:-}"
	if [ -z "$value" ] && [ -n "$file" ]; then
		case "$(cd "$(dirname "$file")" && pwd -P)/" in
		"$(pwd -P)"/*) echo "$1_FILE is inside the project directory: keep secrets out of the repository" >&2; exit 2 ;;
		esac
		value=$(head -n 1 "$file")
	fi
	eval "$1=\$value"
}
