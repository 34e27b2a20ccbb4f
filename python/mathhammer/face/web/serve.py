"""``mathhammer serve``: run the web app on uvicorn, on this computer only unless told otherwise."""

from __future__ import annotations

import contextlib
import socket
import sys
import threading
import time
import webbrowser
from collections.abc import Iterator
from typing import Any

from mathhammer.extras import require
from mathhammer.registry import Registry

DEFAULT_HOST = "127.0.0.1"


def serve(
    *,
    host: str | None = None,
    port: int = 8000,
    open_browser: bool = False,
    max_trials: int = 10_000_000,
    registry: Registry | None = None,
) -> int:
    """Serve the page until interrupted; returns the exit status.

    Binding to an address other than the loopback one is allowed only when
    ``host`` is given, and prints a warning: anyone who can reach the address
    can then use the page (and the computer's cores).
    """
    uvicorn = require("uvicorn", "web", feature="mathhammer serve")
    from mathhammer.face.web.app import LOCAL_HOSTS, create_app

    bind = host or DEFAULT_HOST
    extra: tuple[str, ...] = ()
    if bind not in LOCAL_HOSTS:
        print(
            f"mathhammer: warning: listening on {bind}, not only this computer: anyone who can reach it can use the"
            " page and this computer's cores",
            file=sys.stderr,
        )
        extra = (bind, "*") if bind in ("0.0.0.0", "::") else (bind,)
    app = create_app(registry=registry, max_trials=max_trials, hosts=extra)
    sock = socket.socket(socket.AF_INET6 if ":" in bind else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((bind, port))
    sock.listen(128)  # connections made as soon as the address is printed wait for uvicorn
    shown = "localhost" if bind in LOCAL_HOSTS else bind
    url = f"http://{shown}:{sock.getsockname()[1]}/"
    print(f"mathhammer: serving the page at {url} (Ctrl-C stops it)", flush=True)
    if open_browser:
        threading.Timer(0.5, webbrowser.open, args=(url,)).start()
    config = uvicorn.Config(app, log_level="warning", access_log=False)
    try:
        uvicorn.Server(config).run(sockets=[sock])
    except KeyboardInterrupt:
        # uvicorn shuts down cleanly on Ctrl-C (running jobs are cancelled), then raises it again.
        pass
    print("mathhammer: the page is stopped", flush=True)
    return 0


@contextlib.contextmanager
def running(app: Any, host: str = DEFAULT_HOST) -> Iterator[str]:
    """Serve ``app`` on a free port of ``host`` in a background thread; yields the page's URL.

    For tests and ``make screenshot``: the port is the one the system picks
    (port 0), so runs side by side never collide.
    """
    uvicorn = require("uvicorn", "web", feature="mathhammer serve")
    sock = socket.socket(socket.AF_INET)
    sock.bind((host, 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the web server did not start")
        time.sleep(0.02)
    try:
        yield f"http://{host}:{sock.getsockname()[1]}/"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()
