// Package machine reads this machine's own settings: the person who sits at
// it, not the repository. They live in one directory outside every
// repository, $XDG_CONFIG_HOME/devrites-engine ($HOME/.config/devrites-engine
// when XDG_CONFIG_HOME is unset or not absolute), beside the trust store:
//
//	config.yaml       name: the person's answering name at this machine's
//	                  terminal and chat; signing_key: their SSH key (a public
//	                  key file whose private half ssh-agent holds, or a
//	                  private key file), as git's user.signingkey
//	allowed_signers   this machine's own allowed signers (git's format)
//
// Guarantees: nothing here is read from a workspace, so a clone or a branch
// can never set who answers or which key signs. A missing config.yaml is an
// empty configuration; one that does not parse, or has a key this version
// does not know, is an error naming the file (never a silent default).
//
// Limits: the directory is the OS user's; anyone who can write it can
// change the name, as anyone who can write ~/.gitconfig can.
package machine
