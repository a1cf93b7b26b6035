"""``chainercv.experimental``: models that ChainerCV 0.13 kept apart.

In kusari-cv they live with the other links; these modules re-export them
under ChainerCV's experimental names so that its code imports unchanged.
"""

from kusari_cv.experimental import links
