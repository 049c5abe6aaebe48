package sign

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

// ErrSign is the kind of a signature that was not made: no ssh-keygen, a
// key it cannot use, a confirmation refused, a touch that did not come.
var ErrSign = errors.New("signing failed")

// Sign signs msg with the key at keyPath by running
//
//	ssh-keygen -Y sign -n devrites-decision -f KEY [-U]
//
// with msg on stdin, as git signs a commit: for a public key file (-U)
// ssh-keygen asks ssh-agent for its private half, so the agent's
// confirmation (`ssh-add -c`) or the security key's touch happens; for a
// private key file ssh-keygen reads it (asking for its passphrase on the
// terminal). ssh-keygen's messages ("Confirm user presence…") go to
// stderr as they come. The engine never reads the key; it returns the
// armored signature, or an error and no signature.
func Sign(ctx context.Context, keyPath string, msg []byte, stderr io.Writer) (string, error) {
	if keyPath == "" {
		return "", fmt.Errorf("%w: no signing key is configured", ErrSign)
	}
	if _, err := os.Stat(keyPath); err != nil {
		return "", fmt.Errorf("%w: signing key %s: %v", ErrSign, keyPath, err)
	}
	args := []string{"-Y", "sign", "-n", Namespace, "-f", keyPath}
	if isPublicKeyFile(keyPath) {
		args = append(args, "-U")
	}
	cmd := exec.CommandContext(ctx, "ssh-keygen", args...)
	cmd.Stdin = bytes.NewReader(msg)
	var out, errb bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &errb
	if stderr != nil {
		cmd.Stderr = io.MultiWriter(&errb, stderr)
	}
	if err := cmd.Run(); err != nil {
		why := strings.TrimSpace(errb.String())
		if why == "" {
			why = err.Error()
		}
		return "", fmt.Errorf("%w: ssh-keygen -Y sign: %s", ErrSign, lastLine(why))
	}
	sig := out.String()
	if KeyOf(sig) == "" {
		return "", fmt.Errorf("%w: ssh-keygen wrote no SSH signature", ErrSign)
	}
	return sig, nil
}

// isPublicKeyFile: a .pub file, whose private half only ssh-agent can
// hold. Any other file goes to ssh-keygen as it is, which still tries the
// agent first; the engine never opens the key file itself.
func isPublicKeyFile(path string) bool { return strings.HasSuffix(path, ".pub") }

func lastLine(s string) string {
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}
