"""The heightmap PNG codec against an independent one (Qt's libpng): each reads what the other writes."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtGui import QImage

from model.formats.heightmap import read_heightmap, read_layer_png, write_heightmap, write_layer_png
from model.formats.png import read_png


def qimage_from(array: np.ndarray) -> QImage:
    h, w = array.shape
    fmt = QImage.Format.Format_Grayscale16 if array.dtype == np.uint16 else QImage.Format.Format_Grayscale8
    data = np.ascontiguousarray(array)
    image = QImage(data.tobytes(), w, h, w * data.itemsize, fmt)
    return image.copy()


def array_from(image: QImage, dtype) -> np.ndarray:
    h, w, stride = image.height(), image.width(), image.bytesPerLine()
    raw = np.frombuffer(image.constBits(), np.uint8, count=stride * h).reshape(h, stride)
    return raw[:, : w * np.dtype(dtype).itemsize].copy().view(dtype)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
def test_png_written_by_qt_reads_back_exactly(tmp_path, dtype) -> None:
    rng = np.random.default_rng(4)
    z, x = np.mgrid[0:97, 0:131]
    smooth = (np.sin(x / 11.0) * np.cos(z / 7.0) + 1) * 0.5 * np.iinfo(dtype).max  # libpng favours Paeth here
    noisy = rng.integers(0, np.iinfo(dtype).max, smooth.shape)
    values = np.where(x < 60, smooth, noisy).astype(dtype)
    path = tmp_path / "qt.png"
    assert qimage_from(values).save(str(path), "PNG")
    image = read_png(path)
    assert image.pixels.dtype == dtype
    np.testing.assert_array_equal(image.pixels, values)


def test_qt_reads_our_16_bit_heightmap(tmp_path) -> None:
    z, x = np.mgrid[0:50, 0:70].astype(np.float32)
    heights = 30 * np.sin(x / 8) + z
    mapping = write_heightmap(tmp_path / "h.png", heights)
    image = QImage(str(tmp_path / "h.png"))
    assert not image.isNull() and image.format() == QImage.Format.Format_Grayscale16
    values = array_from(image, np.uint16)
    h64 = heights.astype(np.float64)
    expected = np.rint((h64 - mapping.offset) / mapping.scale * 65535).astype(np.uint16)
    np.testing.assert_array_equal(values, expected)
    np.testing.assert_array_equal(read_heightmap(tmp_path / "h.png").heights.shape, (50, 70))


def test_qt_reads_our_8_bit_layer_weights(tmp_path) -> None:
    weights = np.random.default_rng(1).integers(0, 256, (21, 34)).astype(np.uint8)
    write_layer_png(tmp_path / "w.png", weights)
    image = QImage(str(tmp_path / "w.png"))
    assert image.format() == QImage.Format.Format_Grayscale8
    np.testing.assert_array_equal(array_from(image, np.uint8), weights)
    np.testing.assert_array_equal(read_layer_png(tmp_path / "w.png"), weights)
