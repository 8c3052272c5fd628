"""What gets embedded for each evidence unit: ``ct``/``st``/``flat_text`` for text and
``si``/``li``/``flat_image`` for images (paper 3.2), every template in ``templates.py``."""
