"""Image files, one implementation for every stage that reads one (ingest checks, icon sizes,
descriptions sent to a VLM, images attached to a multimodal prompt, the CLIP filter):

    image_problem(path)          None for a readable, decodable image, else what is wrong with it
    pixel_size(path)             (width, height), or None when the file cannot be read
    open_image(path)             the image as RGB, or ``UnreadableImage`` naming the file
    probe_bytes(data, name)      (format, width, height) of image bytes, or ``UnreadableImage``
    encoded_image(path, side)    (RGB image, bytes, MIME type) downscaled to ``side``, for a data URL
    on_white(path)               whether the file has transparency, so its RGB form is composited
                                 onto white (cache keys of what was made from those pixels note it)

PIL is the decoder; what it raises on a missing, truncated or foreign file is caught here and
nowhere else. An image with transparency (RGBA, LA, a palette or colour key with a transparent
entry) becomes RGB composited onto white: ``convert("RGB")`` alone drops the alpha channel and
shows what the transparent pixels store, usually black, so black text on a transparent background
became all black.
"""
from __future__ import annotations

import io
from pathlib import Path

DATA_URL_FORMATS = {"PNG": "image/png", "JPEG": "image/jpeg", "GIF": "image/gif", "WEBP": "image/webp"}


class UnreadableImage(ValueError):
    """An image file that is missing or cannot be decoded; the message names the file."""


def _decode_errors():
    from PIL import Image, UnidentifiedImageError

    return (UnidentifiedImageError, OSError, SyntaxError, ValueError, Image.DecompressionBombError)


def _has_transparency(image) -> bool:
    return image.mode in ("RGBA", "LA", "PA", "RGBa", "La") or "transparency" in image.info


def _rgb(image):
    """``image`` as RGB, its transparent pixels composited onto white (module docstring)."""
    if not _has_transparency(image):
        return image.convert("RGB")
    from PIL import Image

    rgba = image.convert("RGBA")
    return Image.alpha_composite(Image.new("RGBA", rgba.size, (255, 255, 255, 255)), rgba).convert("RGB")


def on_white(path: Path) -> bool:
    """Whether ``open_image``/``encoded_image`` composite this file onto white (it has
    transparency); False for a file that cannot be read (it is reported where it is opened)."""
    from PIL import Image

    try:
        with Image.open(path) as image:
            return _has_transparency(image)
    except _decode_errors():
        return False


def image_problem(path: Path) -> str | None:
    if not path.exists():
        return "image file not found"
    if not path.is_file():
        return "image reference is not a file"
    if path.stat().st_size == 0:
        return "image file is empty (0 bytes)"
    if path.suffix.lower() in (".svg", ".svgz"):
        return "SVG is a vector format ham does not read (convert it to PNG, e.g. rsvg-convert)"
    from PIL import Image

    try:
        with Image.open(path) as im:
            im.verify()
    except _decode_errors() as exc:
        return f"image file is corrupt or not an image ({exc.__class__.__name__}: {exc})"
    return None


def pixel_size(path: Path | None) -> tuple[int, int] | None:
    if path is None:
        return None
    from PIL import Image

    try:
        with Image.open(path) as im:
            return im.size
    except _decode_errors():
        return None


def open_image(path: Path):
    from PIL import Image

    try:
        with Image.open(path) as image:
            return _rgb(image)
    except _decode_errors() as exc:
        raise UnreadableImage(f"{path}: {exc.__class__.__name__}: {exc}") from exc


def encoded_image(path: Path, max_side: int):
    """(RGB image, bytes for a data URL, MIME type): the file's own bytes when it is small enough
    and a web format, else a PNG downscaled to ``max_side``."""
    from PIL import Image

    try:
        raw = path.read_bytes()
        with Image.open(io.BytesIO(raw)) as probe:
            probe.verify()
        image = Image.open(io.BytesIO(raw))
        fmt = image.format
        image = _rgb(image)
    except _decode_errors() as exc:
        raise UnreadableImage(f"{path}: cannot decode image ({exc})") from exc
    if max(image.size) > max_side or fmt not in DATA_URL_FORMATS:
        image.thumbnail((max_side, max_side))
        buf = io.BytesIO()
        image.save(buf, format="PNG")
        return image, buf.getvalue(), "image/png"
    return image, raw, DATA_URL_FORMATS[fmt]


def probe_bytes(data: bytes | None, name: str) -> tuple[str, int, int]:
    """(format, width, height) of image bytes that decode, else ``UnreadableImage`` naming ``name``
    (a parquet cell holding a page screenshot)."""
    from PIL import Image

    if not data:
        raise UnreadableImage(f"{name}: no image bytes")
    try:
        with Image.open(io.BytesIO(data)) as image:
            image.load()
            return image.format or "", image.width, image.height
    except _decode_errors() as exc:
        raise UnreadableImage(f"{name}: {exc.__class__.__name__}: {exc}") from exc
