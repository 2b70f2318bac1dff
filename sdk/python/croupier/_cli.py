"""The `croupier` command of the wheel: the command line compiled into `croupier._native`,
so the wheel ships the compiled code once (docs/learning.md, "One install")."""

import os
import signal
import sys
import sysconfig


def host_paths() -> None:
    """Where the host finds the command that compiles agents and the example agents, when the
    environment does not say: this installation's own (`CROUPIER_EXE`, `CROUPIER_AGENTS`)."""
    exe = os.path.abspath(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    if not (os.path.basename(exe) == "croupier" and os.access(exe, os.X_OK)):
        exe = os.path.join(sysconfig.get_path("scripts"), "croupier")
    if os.access(exe, os.X_OK):
        os.environ.setdefault("CROUPIER_EXE", exe)
    agents = os.path.join(sysconfig.get_path("data"), "share", "croupier", "agents")
    if os.path.isdir(agents):
        os.environ.setdefault("CROUPIER_AGENTS", agents)


def main() -> None:
    from . import _native

    # Ctrl-C ends the command as it ends the binary: Python's own handler would only set a
    # flag that nobody reads while the command runs.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    # Agents are compiled in a child process of this same command.
    host_paths()
    sys.stdout.flush()
    _native.cli_main(["croupier", *sys.argv[1:]])


if __name__ == "__main__":
    main()
