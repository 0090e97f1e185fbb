def _msm_cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """cosine_similarity as in PyTorch: each input is divided by max(its norm, eps) (MindSpore divides the product
    by max(the product of the norms, eps)); the inputs broadcast first."""
    both = x1 * x2
    dt = both.dtype  # torch's promoted dtype (int32 with float16 is float16)
    x1, x2 = ops.broadcast_to(x1.astype(dt), both.shape), ops.broadcast_to(x2.astype(dt), both.shape)
    n1 = ops.clamp(ops.sqrt(ops.sum(x1 * x1, dim, keepdim=True)), min=eps).astype(dt)
    n2 = ops.clamp(ops.sqrt(ops.sum(x2 * x2, dim, keepdim=True)), min=eps).astype(dt)
    return ops.sum((x1 / n1) * (x2 / n2), dim).astype(dt)
