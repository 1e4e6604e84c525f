// Package ownership decides whether harness may trust a file or folder
// of its own — the state folder, the sessions folder, a session log, the
// config file, the permission rules, an mcp.json — and creates the folders
// harness makes with exact permissions.
//
// # Trusted
//
// A file or folder is trusted when no one but this user or root could
// have written it: it is owned by this process's effective uid or by root,
// and its mode gives group and others no write permission. A folder with
// the sticky bit (like /tmp) is no exception: anyone may still add to it.
// [Check] decides on what a stat said; [CheckFile] on an open file (fstat:
// what is checked is what is read, so a rename between the check and the
// read cannot swap it); [CheckDir] on a folder named by path (a symbolic
// link there must belong to this user or root too, and the folder it
// names is checked). [ReadFile] reads a file only if [CheckFile] trusts
// it.
//
// A refusal is an [*Error], which matches [ErrUntrusted]: one line naming
// the path, the owner (uid, and the name where the user database knows
// it), the mode, and the command that fixes it. It never holds the
// contents. Nothing is ever repaired: a folder the user chose keeps the
// mode it has, and is refused until the user fixes it.
//
// Not checked: the folders above the one checked (a state folder in /tmp
// is fine, /tmp itself is not asked about), ACLs and other permissions
// beyond the mode bits, and a file opened by name after its folder was
// checked, which is only as safe as that folder. Where the system has no
// Unix owners and modes (Windows) nothing is refused.
//
// # Creating
//
// [MkdirAll] creates a folder and its missing parents 0700 whatever the
// umask: each folder it creates is set to 0700 through its own open
// descriptor after mkdir. A folder that exists is left as it is, for the
// caller to check.
package ownership
