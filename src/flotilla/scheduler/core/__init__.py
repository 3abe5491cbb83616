"""The pure scheduling core: inputs, filtering, scoring, selection, replica division, and the pipeline.

Nothing here does I/O or keeps state between calls; `generic.schedule` is the entry point.
"""
