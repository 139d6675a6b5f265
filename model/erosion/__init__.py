"""Terrain erosion: thermal (talus) and droplet-based hydraulic, tile by tile on the batch path."""
