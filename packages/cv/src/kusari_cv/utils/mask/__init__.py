"""Instance mask utilities (masks are boolean ``(R, H, W)`` arrays)."""
