"""Test PDFs drawn with reportlab (BSD): a small manual with real font sizes, a figure, a ruled
table, running headers and "Page N of M" footers (and, asked for, a logo in the footer of every
page); an image-only (scanned) PDF; an encrypted one."""
from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw


def _picture(path: Path, label: str, size=(480, 300)) -> Path:
    im = Image.new("RGB", size, "steelblue")
    ImageDraw.Draw(im).rectangle([20, 20, size[0] - 20, size[1] - 20], outline="white", width=6)
    ImageDraw.Draw(im).text((40, 40), label, fill="white")
    im.save(path)
    return path


def manual_pdf(path: Path, pages: int = 3, encrypt: str | None = None, logo: bool = False) -> Path:
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    width, height = A4
    c = canvas.Canvas(str(path), pagesize=A4, encrypt=encrypt)
    c.setTitle("Microsoft Word - pump.docx")
    pic = _picture(path.with_suffix(".fig.png"), "pump")
    badge = _picture(path.with_suffix(".logo.png"), "ACME", size=(180, 60)) if logo else None
    body = [
        [("Helvetica-Bold", 24, "Pump P-300 Service Manual"),
         ("Helvetica", 10, "This manual covers installation and care of the P-300 pump."),
         ("Helvetica-Bold", 16, "1 Installation"),
         ("Helvetica", 10, "Place the pump on a level concrete base and fix it with four anchor bolts."),
         ("Helvetica-Bold", 13, "1.1 Wiring"),
         ("Helvetica", 10, "Connect the motor to a 400 V supply through the isolator."),
         ("figure", 0, "Figure 1: The pump on its concrete base.")],
        [("Helvetica-Bold", 16, "2 Maintenance"),
         ("Helvetica", 10, "Check the oil level every month and replace the seals every two years."),
         ("table", 0, "Table 1: Service intervals"),
         ("Helvetica-Bold", 13, "2.1 Cleaning"),
         ("Helvetica", 10, "Rinse the strainer with clean water.")],
        [("Helvetica-Bold", 16, "3 Troubleshooting"),
         ("Helvetica", 10, "If the pump hums but does not start, check the capacitor.")],
    ]
    for n in range(pages):
        c.setFont("Helvetica", 8)
        c.drawString(72, height - 40, "P-300 Service Manual - Rev. B")
        c.drawString(width / 2 - 30, 30, f"Page {n + 1} of {pages}")
        if badge is not None:
            c.drawImage(str(badge), width - 132, 20, width=60, height=20)
        y = height - 100
        for font, size, text in body[n % len(body)]:
            if font == "figure":
                c.drawImage(str(pic), 100, y - 200, width=240, height=150)
                y -= 215
                c.setFont("Helvetica", 9)
                c.drawString(100, y, text)
                y -= 30
                continue
            if font == "table":
                c.setFont("Helvetica", 9)
                c.drawString(100, y, text)
                y -= 20
                rows = [("Part", "Interval"), ("Oil", "1 month"), ("Seals", "24 months")]
                for r, (a, b) in enumerate(rows):
                    top = y - r * 18
                    c.rect(100, top - 18, 150, 18)
                    c.rect(250, top - 18, 150, 18)
                    c.drawString(105, top - 13, a)
                    c.drawString(255, top - 13, b)
                y -= 18 * len(rows) + 30
                continue
            c.setFont(font, size)
            c.drawString(72, y, text)
            y -= size * 2.2
        c.showPage()
    c.save()
    return path


def scanned_pdf(path: Path) -> Path:
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    pic = _picture(path.with_suffix(".scan.png"), "scanned page", (600, 800))
    c = canvas.Canvas(str(path), pagesize=A4)
    c.drawImage(str(pic), 0, 0, width=A4[0], height=A4[1])
    c.showPage()
    c.save()
    return path


def fonts_pdf(path: Path, lines: list[tuple], fonts: dict[str, tuple[str, int]]) -> Path:
    """A one-page PDF written object by object, for what reportlab does not let a test set: each
    font's descriptor. ``fonts``: resource key -> (FontName, descriptor Flags), a non-embedded
    Type1 font with Helvetica's widths; ``lines``: (resource key, size, text) top to bottom, or
    (resource key, size, text, lead): the distance to the next baseline (default 2.2 x size)."""
    objects = ["<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>"]
    font_refs = {key: 5 + 2 * i for i, key in enumerate(fonts)}
    resources = " ".join(f"/{k} {n} 0 R" for k, n in font_refs.items())
    objects.append(f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R "
                   f"/Resources << /Font << {resources} >> >> >>")
    y, ops = 760.0, []
    for key, size, text, *lead in lines:
        escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        ops.append(f"BT /{key} {size:g} Tf 72 {y:g} Td ({escaped}) Tj ET")
        y -= lead[0] if lead else size * 2.2
    stream = "\n".join(ops)
    objects.append(f"<< /Length {len(stream.encode('latin-1'))} >>\nstream\n{stream}\nendstream")
    widths = " ".join(["556"] * 95)
    for key, (name, flags) in fonts.items():
        n = font_refs[key]
        objects.append(f"<< /Type /Font /Subtype /Type1 /BaseFont /{name} /FirstChar 32 /LastChar 126 "
                       f"/Widths [{widths}] /Encoding /WinAnsiEncoding /FontDescriptor {n + 1} 0 R >>")
        objects.append(f"<< /Type /FontDescriptor /FontName /{name} /Flags {flags} /FontBBox [-166 -225 1000 931] "
                       f"/ItalicAngle 0 /Ascent 718 /Descent -207 /CapHeight 718 /StemV 88 >>")
    out, offsets = b"%PDF-1.4\n", []
    for i, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n{body}\nendobj\n".encode("latin-1")
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += "".join(f"{o:010d} 00000 n \n" for o in offsets).encode()
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    path.write_bytes(out)
    return path


def winansi_table_pdf(path: Path) -> Path:
    """A ruled table of two rows set in the standard Courier with WinAnsiEncoding, a cell opening
    with code 127 (ReportLab's bullet: WinAnsi's unused codes are bullets), written by hand: reportlab's
    canvas re-encodes that code."""
    content = (b"0.5 w 72 700 m 372 700 l S 72 680 m 372 680 l S 72 660 m 372 660 l S 72 700 m 72 660 l S "
               b"222 700 m 222 660 l S 372 700 m 372 660 l S "
               b"BT /F1 10 Tf 76 686 Td (Option) Tj ET BT /F1 10 Tf 226 686 Td (Values) Tj ET "
               b"BT /F1 10 Tf 76 666 Td (-q) Tj ET BT /F1 10 Tf 226 666 Td (\\177 quiet) Tj ET")
    objs = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R "
            b"/Resources << /Font << /F1 5 0 R >> >> >>",
            b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
            b"<< /Type /Font /Subtype /Type1 /BaseFont /Courier /Encoding /WinAnsiEncoding >>"]
    out, offsets = b"%PDF-1.4\n", []
    for i, obj in enumerate(objs, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + obj + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1) + b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, xref)
    path.write_bytes(out)
    return path
