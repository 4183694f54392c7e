"""torch.optim.lr_scheduler's LambdaLR, CosineAnnealingLR, StepLR and
LinearLR. A scheduler sets ``param_groups[i]["lr"]``, which is data: a new
rate never compiles, and a ``kiln.jit`` replay uses it."""

import math


class LRScheduler:
    def __init__(self, optimizer, last_epoch=-1):
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        self.base_lrs = [g["initial_lr"] for g in optimizer.param_groups]
        self.last_epoch = last_epoch
        self.step()

    def get_lr(self):
        raise NotImplementedError

    def step(self, epoch=None):
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        lrs = self.get_lr()
        for group, lr in zip(self.optimizer.param_groups, lrs):
            group["lr"] = lr
        self._last_lr = list(lrs)

    def get_last_lr(self):
        return self._last_lr

    def state_dict(self):
        return {k: v for k, v in self.__dict__.items()
                if k not in ("optimizer", "lr_lambdas")}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)


class LambdaLR(LRScheduler):
    """lr = initial_lr * lr_lambda(epoch)."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        groups = len(optimizer.param_groups)
        self.lr_lambdas = list(lr_lambda) if isinstance(
            lr_lambda, (list, tuple)) else [lr_lambda] * groups
        if len(self.lr_lambdas) != groups:
            raise ValueError(f"Expected {groups} lr_lambdas, but got "
                             f"{len(self.lr_lambdas)}")
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        return [base * fn(self.last_epoch)
                for base, fn in zip(self.base_lrs, self.lr_lambdas)]


class CosineAnnealingLR(LRScheduler):
    """PyTorch's recursive cosine schedule from initial_lr to eta_min over
    T_max epochs."""

    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):
        self.T_max, self.eta_min = T_max, eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        groups = self.optimizer.param_groups
        t, T = self.last_epoch, self.T_max
        if t == 0:
            return [g["lr"] for g in groups]
        if (t - 1 - T) % (2 * T) == 0:
            return [g["lr"] + (base - self.eta_min) *
                    (1 - math.cos(math.pi / T)) / 2
                    for base, g in zip(self.base_lrs, groups)]
        return [(1 + math.cos(math.pi * t / T)) /
                (1 + math.cos(math.pi * (t - 1) / T)) *
                (g["lr"] - self.eta_min) + self.eta_min for g in groups]


class StepLR(LRScheduler):
    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size, self.gamma = step_size, gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        return [base * self.gamma ** (self.last_epoch // self.step_size)
                for base in self.base_lrs]


class LinearLR(LRScheduler):
    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0,
                 total_iters=5, last_epoch=-1):
        self.start_factor, self.end_factor = start_factor, end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        t = min(self.last_epoch, self.total_iters)
        factor = self.start_factor + (self.end_factor - self.start_factor) \
            * t / self.total_iters
        return [base * factor for base in self.base_lrs]
