"""Every change to an object, whoever asks for it: HTTP handlers, in-process controllers, simulators.

`pipeline.py` runs creates and updates (defaults, admission, field ownership, validation, the
guarded write); `normalize.py` turns a decoded body into an object the pipeline can trust;
`patching.py` applies the four patch types; `deletion.py` deletes (finalizers, propagation, grace);
`binding.py` binds a pod to a node.
"""
