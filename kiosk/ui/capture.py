"""The window's pixels as a PNG file, named exactly (Window.screenshot numbers its files)."""

from __future__ import annotations

from pathlib import Path

from kivy.core.window import Window


def save_window(path: Path, *, compress_level: int = 1) -> Path:
    from kivy.graphics.opengl import GL_RGB, GL_UNSIGNED_BYTE, glReadPixels
    from PIL import Image

    width, height = (int(v) for v in Window.size)
    data = glReadPixels(0, 0, width, height, GL_RGB, GL_UNSIGNED_BYTE)
    image = Image.frombytes("RGB", (width, height), data)
    path.parent.mkdir(parents=True, exist_ok=True)
    image.transpose(Image.Transpose.FLIP_TOP_BOTTOM).save(path, compress_level=compress_level)
    return path
