"""``zlint server``: a language server over stdio (pygls), for editors.

The protocol half (:mod:`.lsp`) imports pygls and lsprotocol; they load only with this command
(:data:`INSTALL_HINT`). The workspace's state lives in :mod:`.workspace`.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence

#: zlint is not on PyPI (README, Install): the extra comes from the clone zlint was installed from
INSTALL_HINT = "in your zlint clone: pip install '.[server]' (from elsewhere: pip install '/path/to/zlint[server]')"


def main(argv: Sequence[str] = ()) -> int:
    parser = argparse.ArgumentParser(prog="zlint server", description="Run zlint's language server over stdio.")
    parser.add_argument(
        "--docs-url", metavar="URL",
        help="base URL of the docs site the diagnostics link to (default: mkdocs.yml's site_url, "
        "else the rule's Markdown file)",
    )
    parser.add_argument("--log-file", metavar="PATH", help="also write the server's log to PATH")
    parser.add_argument(
        "--config-poll", metavar="SECONDS", type=float, default=None,
        help="when the editor watches no files for the server, look for a changed pyproject.toml "
        "every SECONDS (default 2; 0: only when a document is opened, changed or saved)",
    )
    args = parser.parse_args(list(argv))
    try:
        from zlint.frontends.server.lsp import build
    except ImportError as exc:
        print(f"zlint: error: the server needs pygls and lsprotocol; {INSTALL_HINT} ({exc})", file=sys.stderr)
        return 2
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    if args.log_file:
        handlers.append(logging.FileHandler(args.log_file, encoding="utf-8"))
    logging.basicConfig(level=logging.WARNING, handlers=handlers, format="%(asctime)s %(name)s: %(message)s")
    logging.getLogger("zlint.server").setLevel(logging.INFO)
    build(args.docs_url, args.config_poll).start_io()
    return 0
