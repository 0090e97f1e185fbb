class _MsmigrateInstanceNorm(nn.Cell):
    """torch.nn.InstanceNorm1d/2d/3d: MindSpore 2.10 has no CPU kernel for InstanceNorm. Each (sample, channel)
    is normalised over its spatial axes (biased variance), as torch does; with track_running_stats the running
    statistics follow torch's update (momentum, unbiased variance averaged over the batch) and are used in
    inference. Parameters as MindSpore names them (gamma, beta, moving_mean, moving_variance)."""

    def __init__(self, dims, num_features, eps=1e-05, momentum=0.1, affine=False, track_running_stats=False):
        super().__init__()
        self.dims, self.num_features, self.eps, self.momentum = dims, num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        if affine:
            self.gamma = ms.Parameter(ops.ones((num_features,), ms.float32), name="gamma")
            self.beta = ms.Parameter(ops.zeros((num_features,), ms.float32), name="beta")
        if track_running_stats:
            self.moving_mean = ms.Parameter(ops.zeros((num_features,), ms.float32), name="moving_mean",
                                            requires_grad=False)
            self.moving_variance = ms.Parameter(ops.ones((num_features,), ms.float32), name="moving_variance",
                                                requires_grad=False)

    def construct(self, input):
        batched = input.ndim == self.dims + 2
        if not batched:  # torch accepts (C, L) / (C, H, W): one sample
            input = input.expand_dims(0)
        axes = tuple(range(2, input.ndim))
        view = (1, -1) + (1,) * self.dims
        if self.track_running_stats and not self.training:
            mean = self.moving_mean.reshape(view)
            var = self.moving_variance.reshape(view)
        else:
            mean = input.mean(axis=axes, keep_dims=True)
            var = ((input - mean) ** 2).mean(axis=axes, keep_dims=True)
            if self.track_running_stats:
                n = 1
                for a in axes:
                    n *= input.shape[a]
                unbiased = var * (n / max(n - 1, 1))
                m = self.momentum
                self.moving_mean.set_data((1 - m) * self.moving_mean + m * ops.stop_gradient(mean).mean(axis=0).reshape(-1))
                self.moving_variance.set_data((1 - m) * self.moving_variance
                                              + m * ops.stop_gradient(unbiased).mean(axis=0).reshape(-1))
        out = (input - mean) / ops.sqrt(var + self.eps)
        if self.affine:
            out = out * self.gamma.reshape(view) + self.beta.reshape(view)
        return out if batched else out.squeeze(0)
