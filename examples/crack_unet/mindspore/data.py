"""Synthetic road-crack segmentation data (no download, numpy only).

Each sample is a textured, unevenly lit road-like background with one thin
(1-3 px), branching, low-contrast dark crack drawn on it. Images are float32
(3, H, W), normalised with fixed per-channel statistics; masks are float32
(1, H, W) in {0, 1}. The same seed always gives the same arrays.
"""
import numpy as np
import mindspore as ms
from mindspore import ops

def _msm_inplace(x, value):
    """x op= v as in PyTorch: the result keeps x's dtype; a result of a wider kind (bool < integer < floating <
    complex) raises as PyTorch does."""
    kinds = [3 if ops.is_complex(t) else 2 if ops.is_floating_point(t) else int(t.dtype != ms.bool_)
             for t in (x, value)]
    if kinds[1] > kinds[0]:
        raise RuntimeError("result type can't be cast to the desired output type of the in-place operator (PyTorch)")
    return value.astype(x.dtype)

# Fixed normalisation constants (close to the data's own mean and std).
MEAN = np.float32(0.467)
STD = np.float32(0.088)


def _smooth_noise(rng, size, cells):
    """Value noise: a (cells x cells) random grid, bilinearly upsampled to size x size."""
    grid = rng.standard_normal((cells + 1, cells + 1))
    pos = np.linspace(0.0, cells, size, endpoint=False)
    i = pos.astype(int)
    t = pos - i
    rows = grid[i] * (1 - t)[:, None] + grid[i + 1] * t[:, None]
    return rows[:, i] * (1 - t)[None, :] + rows[:, i + 1] * t[None, :]


def _background(rng, size):
    """Grey asphalt: multi-scale texture, grain, speckle and an illumination gradient."""
    texture = (0.05 * _smooth_noise(rng, size, 4)
               + 0.035 * _smooth_noise(rng, size, 12)
               + 0.03 * rng.standard_normal((size, size)))
    speckle = rng.random((size, size))
    texture = texture + 0.12 * (speckle > 0.985) - 0.10 * (speckle < 0.01)
    angle = rng.uniform(0.0, 2 * np.pi)
    yy, xx = np.mgrid[0:size, 0:size] / size - 0.5
    light = 1.0 + rng.uniform(0.15, 0.45) * (np.cos(angle) * xx + np.sin(angle) * yy)
    grey = rng.uniform(0.40, 0.55) + texture
    tint = 1.0 + rng.uniform(-0.04, 0.04, size=(3, 1, 1))
    return grey[None] * tint, light


def _crack_segments(rng, size):
    """Segments of a random-walk crack grown both ways from an interior point, plus 1-3 branches."""
    segments = []

    def walk(start, heading, length, step):
        point = np.asarray(start, dtype=float)
        for _ in range(int(length / step)):
            if ops.is_tensor(heading):
                heading.copy_(_msm_inplace(heading, heading + rng.normal(0.0, 0.35)))  # in place as in torch: aliases of heading see the change
            else:
                heading += rng.normal(0.0, 0.35)
            nxt = point + step * np.array([np.cos(heading), np.sin(heading)])
            segments.append((point, nxt))
            point = nxt

    centre = rng.uniform(0.3, 0.7, size=2) * size
    heading = rng.uniform(0.0, np.pi)
    for direction in (heading, heading + np.pi):
        walk(centre, direction, rng.uniform(0.45, 0.7) * size, size / 16)
    main = list(segments)
    for _ in range(rng.integers(1, 4)):  # branches sprout from a segment of the main crack
        a, b = main[rng.integers(len(main) // 4, len(main))]
        direction = np.arctan2(b[1] - a[1], b[0] - a[0])
        branch = direction + rng.choice([-1, 1]) * rng.uniform(0.5, 1.2)
        walk(b, branch, rng.uniform(0.2, 0.45) * size, size / 20)
    return segments


def _distance_to_segments(segments, size):
    """Distance of every pixel centre to the nearest segment, shape (size, size)."""
    yy, xx = np.mgrid[0:size, 0:size].astype(float)
    best = np.full((size, size), np.inf)
    for (ax, ay), (bx, by) in segments:
        dx, dy = bx - ax, by - ay
        t = ((xx - ax) * dx + (yy - ay) * dy) / max(dx * dx + dy * dy, 1e-9)
        t = np.clip(t, 0.0, 1.0)
        best = np.minimum(best, np.hypot(xx - (ax + t * dx), yy - (ay + t * dy)))
    return best


def make_crack_sample(rng, size=64):
    """One (image, mask) pair: float32 (3, size, size) normalised, float32 (1, size, size) in {0, 1}."""
    background, light = _background(rng, size)
    distance = _distance_to_segments(_crack_segments(rng, size), size)
    half_width = rng.uniform(0.5, 1.5)  # 1-3 px wide
    mask = (distance <= half_width).astype(np.float32)
    # Dark, low-contrast crack, anti-aliased so the mask edge is the half-depth line,
    # then the uneven lighting on top.
    depth = rng.uniform(0.07, 0.15) * np.clip(half_width + 0.5 - distance, 0.0, 1.0)
    image = (background - depth[None]) * light[None]
    image = np.clip(image, 0.0, 1.0).astype(np.float32)
    return (image - MEAN) / STD, mask[None]


def make_arrays(n, size=64, seed=0):
    """n samples as numpy arrays: images (n, 3, size, size), masks (n, 1, size, size), float32."""
    rng = np.random.default_rng(seed)
    images = np.empty((n, 3, size, size), dtype=np.float32)
    masks = np.empty((n, 1, size, size), dtype=np.float32)
    for i in range(n):
        images[i], masks[i] = make_crack_sample(rng, size)
    return images, masks


class CrackDataset(object):
    """n synthetic crack samples generated once at construction; items are (image, mask) tensors."""

    def __init__(self, n, size=64, seed=0):
        self.images, self.masks = make_arrays(n, size, seed)

    def __len__(self):
        return len(self.images)

    def __getitem__(self, index):
        return ms.Tensor.from_numpy(self.images[index]), ms.Tensor.from_numpy(self.masks[index])
