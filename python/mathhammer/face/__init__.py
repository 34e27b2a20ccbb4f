"""The face: what presents mathhammer to people, on top of the public API.

- :mod:`.cli`: the ``mathhammer`` command line;
- :mod:`.report`: the terminal reports of a Result and a comparison (rich);
- :mod:`.progress`: the progress bar of a long run;
- :mod:`.explain`: one attack told die by die (the narration of ``mathhammer.replay``'s trace);
- :mod:`.inventory`: what ``mathhammer plugins`` shows;
- :mod:`.locate`: the line of a TOML file an error points at;
- :mod:`.web`: the local web page, ``mathhammer serve``.

The face imports the API; nothing outside this package imports the face (a
test walks every module's imports). ``docs/architecture.md`` ("The tree")
says where each module lives and why.
"""
