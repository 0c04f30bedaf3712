"""pytest setup for the bwc package tests: the package comes from the build
tree (PYTHONPATH=build/python, set by ctest), the real models from
BWC_SHARED_MODELS (default ../shared/models beside the checkout)."""
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
ROOT = os.path.dirname(os.path.dirname(HERE))
MODELS = os.environ.get("BWC_SHARED_MODELS",
                        os.path.join(os.path.dirname(ROOT), "shared", "models"))


@pytest.fixture
def models():
    if not os.path.isdir(os.path.join(MODELS, "ppocr_cls")):
        pytest.skip("../shared/models not found")
    return MODELS
