"""Caltech-UCSD Birds-200-2011 (CUB): download, shared reader, label names."""

from __future__ import annotations

import os

import numpy as np

from kusari_cv.chainer_experimental.datasets.sliceable import GetterDataset
from kusari_cv.datasets._common import prepare, read_lines, require
from kusari_cv.utils.image import read_image, read_label

_BASE = "http://www.vision.caltech.edu/visipedia-data/CUB-200-2011/"
url = _BASE + "CUB_200_2011.tgz"
prob_map_url = _BASE + "segmentations.tgz"


def get_cub(owner: str = "get_cub") -> str:
    """Return the ``CUB_200_2011`` folder, downloading it when missing."""

    def ready(root: str) -> bool:
        return os.path.exists(os.path.join(root, "CUB_200_2011", "images.txt"))

    return os.path.join(prepare("cub", owner, ready, [(url, None)]), "CUB_200_2011")


def get_cub_prob_map(owner: str = "get_cub_prob_map") -> str:
    """Return the ``segmentations`` folder, downloading it when missing."""

    def ready(root: str) -> bool:
        return os.path.isdir(os.path.join(root, "segmentations"))

    root = prepare("cub", owner, ready, [(prob_map_url, None)])
    return os.path.join(root, "segmentations")


def _parse_table(path: str, owner: str, what: str, width: int) -> dict[str, list[str]]:
    """Read ``<image id> <field> ...`` lines into {image id: fields}."""
    table = {}
    for line in read_lines(path, owner, what):
        fields = line.split()
        if len(fields) < width + 1:
            raise ValueError(
                f"{owner}: each line of {path!r} must have an image id and "
                f"{width} fields, got {line!r}"
            )
        table[fields[0]] = fields[1:]
    return table


class CUBDatasetBase(GetterDataset):
    """Shared reader of CUB's ``images.txt`` and ``bounding_boxes.txt``.

    Registers the getters ``bbox`` (``(1, 4)`` float32 ``(y_min, x_min,
    y_max, x_max)``) and ``prob_map`` (``(H, W)`` float32 in ``[0, 1]``, from
    ``<prob_map_dir>/<image path>.png``).
    """

    def __init__(
        self,
        data_dir: str = "auto",
        prob_map_dir: str = "auto",
        use_prob_map: bool = False,
    ) -> None:
        super().__init__()
        owner = type(self).__name__
        if data_dir == "auto":
            data_dir = get_cub(owner)
        if prob_map_dir == "auto" and use_prob_map:
            prob_map_dir = get_cub_prob_map(owner)
        self.data_dir = data_dir
        self.prob_map_dir = prob_map_dir

        images = os.path.join(data_dir, "images.txt")
        self.image_ids: list[str] = []
        self.paths: list[str] = []
        for line in read_lines(images, owner, "the image list images.txt"):
            fields = line.split(maxsplit=1)
            if len(fields) != 2:
                raise ValueError(
                    f"{owner}: each line of {images!r} must be '<id> <path>', "
                    f"got {line!r}"
                )
            self.image_ids.append(fields[0])
            self.paths.append(fields[1])
        boxes_path = os.path.join(data_dir, "bounding_boxes.txt")
        boxes = _parse_table(boxes_path, owner, "the boxes bounding_boxes.txt", 4)
        xywh = np.zeros((len(self.image_ids), 4), dtype=np.float32)
        for r, image_id in enumerate(self.image_ids):
            if image_id not in boxes:
                raise ValueError(
                    f"{owner}: image id {image_id} of images.txt has no line in "
                    f"{boxes_path!r}"
                )
            xywh[r] = [float(v) for v in boxes[image_id][:4]]
        self.bboxes = np.stack(
            [xywh[:, 1], xywh[:, 0], xywh[:, 1] + xywh[:, 3], xywh[:, 0] + xywh[:, 2]],
            axis=1,
        )
        self.add_getter("bbox", self._get_bbox)
        self.add_getter("prob_map", self._get_prob_map)

    def __len__(self) -> int:
        return len(self.paths)

    def _image_path(self, i: int) -> str:
        path = os.path.join(self.data_dir, "images", self.paths[i])
        return require(path, type(self).__name__, f"the image {self.paths[i]!r}")

    def _get_image(self, i: int) -> np.ndarray:
        return read_image(self._image_path(i), color=True)

    def _get_bbox(self, i: int) -> np.ndarray:
        return self.bboxes[i][None]

    def _get_prob_map(self, i: int) -> np.ndarray:
        path = os.path.join(
            self.prob_map_dir, os.path.splitext(self.paths[i])[0] + ".png"
        )
        require(path, type(self).__name__, f"the probability map of {self.paths[i]!r}")
        return read_label(path, dtype=np.uint8).astype(np.float32) / 255


cub_label_names = (
    "Black_footed_Albatross", "Laysan_Albatross", "Sooty_Albatross",
    "Groove_billed_Ani", "Crested_Auklet", "Least_Auklet", "Parakeet_Auklet",
    "Rhinoceros_Auklet", "Brewer_Blackbird", "Red_winged_Blackbird",
    "Rusty_Blackbird", "Yellow_headed_Blackbird", "Bobolink",
    "Indigo_Bunting", "Lazuli_Bunting", "Painted_Bunting", "Cardinal",
    "Spotted_Catbird", "Gray_Catbird", "Yellow_breasted_Chat",
    "Eastern_Towhee", "Chuck_will_Widow", "Brandt_Cormorant",
    "Red_faced_Cormorant", "Pelagic_Cormorant", "Bronzed_Cowbird",
    "Shiny_Cowbird", "Brown_Creeper", "American_Crow", "Fish_Crow",
    "Black_billed_Cuckoo", "Mangrove_Cuckoo", "Yellow_billed_Cuckoo",
    "Gray_crowned_Rosy_Finch", "Purple_Finch", "Northern_Flicker",
    "Acadian_Flycatcher", "Great_Crested_Flycatcher", "Least_Flycatcher",
    "Olive_sided_Flycatcher", "Scissor_tailed_Flycatcher",
    "Vermilion_Flycatcher", "Yellow_bellied_Flycatcher", "Frigatebird",
    "Northern_Fulmar", "Gadwall", "American_Goldfinch", "European_Goldfinch",
    "Boat_tailed_Grackle", "Eared_Grebe", "Horned_Grebe", "Pied_billed_Grebe",
    "Western_Grebe", "Blue_Grosbeak", "Evening_Grosbeak", "Pine_Grosbeak",
    "Rose_breasted_Grosbeak", "Pigeon_Guillemot", "California_Gull",
    "Glaucous_winged_Gull", "Heermann_Gull", "Herring_Gull", "Ivory_Gull",
    "Ring_billed_Gull", "Slaty_backed_Gull", "Western_Gull",
    "Anna_Hummingbird", "Ruby_throated_Hummingbird", "Rufous_Hummingbird",
    "Green_Violetear", "Long_tailed_Jaeger", "Pomarine_Jaeger", "Blue_Jay",
    "Florida_Jay", "Green_Jay", "Dark_eyed_Junco", "Tropical_Kingbird",
    "Gray_Kingbird", "Belted_Kingfisher", "Green_Kingfisher",
    "Pied_Kingfisher", "Ringed_Kingfisher", "White_breasted_Kingfisher",
    "Red_legged_Kittiwake", "Horned_Lark", "Pacific_Loon", "Mallard",
    "Western_Meadowlark", "Hooded_Merganser", "Red_breasted_Merganser",
    "Mockingbird", "Nighthawk", "Clark_Nutcracker", "White_breasted_Nuthatch",
    "Baltimore_Oriole", "Hooded_Oriole", "Orchard_Oriole", "Scott_Oriole",
    "Ovenbird", "Brown_Pelican", "White_Pelican", "Western_Wood_Pewee",
    "Sayornis", "American_Pipit", "Whip_poor_Will", "Horned_Puffin",
    "Common_Raven", "White_necked_Raven", "American_Redstart", "Geococcyx",
    "Loggerhead_Shrike", "Great_Grey_Shrike", "Baird_Sparrow",
    "Black_throated_Sparrow", "Brewer_Sparrow", "Chipping_Sparrow",
    "Clay_colored_Sparrow", "House_Sparrow", "Field_Sparrow", "Fox_Sparrow",
    "Grasshopper_Sparrow", "Harris_Sparrow", "Henslow_Sparrow",
    "Le_Conte_Sparrow", "Lincoln_Sparrow", "Nelson_Sharp_tailed_Sparrow",
    "Savannah_Sparrow", "Seaside_Sparrow", "Song_Sparrow", "Tree_Sparrow",
    "Vesper_Sparrow", "White_crowned_Sparrow", "White_throated_Sparrow",
    "Cape_Glossy_Starling", "Bank_Swallow", "Barn_Swallow", "Cliff_Swallow",
    "Tree_Swallow", "Scarlet_Tanager", "Summer_Tanager", "Artic_Tern",
    "Black_Tern", "Caspian_Tern", "Common_Tern", "Elegant_Tern",
    "Forsters_Tern", "Least_Tern", "Green_tailed_Towhee", "Brown_Thrasher",
    "Sage_Thrasher", "Black_capped_Vireo", "Blue_headed_Vireo",
    "Philadelphia_Vireo", "Red_eyed_Vireo", "Warbling_Vireo",
    "White_eyed_Vireo", "Yellow_throated_Vireo", "Bay_breasted_Warbler",
    "Black_and_white_Warbler", "Black_throated_Blue_Warbler",
    "Blue_winged_Warbler", "Canada_Warbler", "Cape_May_Warbler",
    "Cerulean_Warbler", "Chestnut_sided_Warbler", "Golden_winged_Warbler",
    "Hooded_Warbler", "Kentucky_Warbler", "Magnolia_Warbler",
    "Mourning_Warbler", "Myrtle_Warbler", "Nashville_Warbler",
    "Orange_crowned_Warbler", "Palm_Warbler", "Pine_Warbler",
    "Prairie_Warbler", "Prothonotary_Warbler", "Swainson_Warbler",
    "Tennessee_Warbler", "Wilson_Warbler", "Worm_eating_Warbler",
    "Yellow_Warbler", "Northern_Waterthrush", "Louisiana_Waterthrush",
    "Bohemian_Waxwing", "Cedar_Waxwing", "American_Three_toed_Woodpecker",
    "Pileated_Woodpecker", "Red_bellied_Woodpecker", "Red_cockaded_Woodpecker",
    "Red_headed_Woodpecker", "Downy_Woodpecker", "Bewick_Wren", "Cactus_Wren",
    "Carolina_Wren", "House_Wren", "Marsh_Wren", "Rock_Wren", "Winter_Wren",
    "Common_Yellowthroat",
)  # fmt: skip
