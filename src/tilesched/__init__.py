"""tilesched: scheduling and synchronization for tile programs on multi-unit accelerators."""

__version__ = "0.1.0"
