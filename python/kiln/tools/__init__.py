"""Tools that work on kiln's outputs (the fusion graph viewer)."""
