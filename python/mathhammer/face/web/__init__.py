"""The local web page: ``mathhammer serve`` (needs ``pip install 'mathhammer[web]'``).

:func:`mathhammer.face.web.app.create_app` builds the ASGI app;
:func:`mathhammer.face.web.serve.serve` runs it on uvicorn. The page calls the
same public API the command line does, through the routes of :mod:`.app`.
"""
