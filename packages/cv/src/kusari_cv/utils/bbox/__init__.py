"""Bounding box utilities (boxes are ``(y_min, x_min, y_max, x_max)``)."""
