"""Foliage and terrain in and out of engines: glTF, USD, CSV and JSON."""
