"""View-models: what each screen shows, computed outside Kivy (never import kivy here).

Functions that take a Station run on the StationWorker and call pos services; the rest are
pure. They return frozen dataclasses of display strings, colours and enabled flags, and every
refusal carries its reason and the rule it cites.
"""
