"""kiln.nn: torch.nn's modules, functional, init and utils on kiln
tensors."""

from . import functional, init, utils
from .modules import (GELU, CrossEntropyLoss, Dropout, Embedding, Identity,
                      LayerNorm, Linear, Module, ModuleDict, ModuleList,
                      MSELoss, Parameter, ReLU, RMSNorm, Sequential, Sigmoid,
                      SiLU, Softmax, Tanh)

__all__ = ["GELU", "CrossEntropyLoss", "Dropout", "Embedding", "Identity",
           "LayerNorm", "Linear", "Module", "ModuleDict", "ModuleList",
           "MSELoss", "Parameter", "ReLU", "RMSNorm", "Sequential",
           "Sigmoid", "SiLU", "Softmax", "Tanh", "functional", "init",
           "utils"]
