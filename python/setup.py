"""pip install --no-build-isolation python/

Builds the `_wnn` extension with the repository's CMake build (into python/build-pip, or reuses
the build directory named by WNN_BUILD_DIR) and packages it with the pure-Python modules.
Only Debian's setuptools is needed; nothing is downloaded."""

import glob
import os
import shutil
import subprocess
import sys

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


class BuildWithCMake(build_py):
    def run(self):
        super().run()
        build_dir = os.environ.get("WNN_BUILD_DIR") or os.path.join(HERE, "build-pip")
        if not os.path.exists(os.path.join(build_dir, "build.ninja")):
            subprocess.check_call(["cmake", "-S", ROOT, "-B", build_dir, "-G", "Ninja",
                                   "-DCMAKE_BUILD_TYPE=Release",
                                   f"-DPython_EXECUTABLE={sys.executable}"])
        subprocess.check_call(["cmake", "--build", build_dir, "--target", "_wnn", "-j",
                               os.environ.get("WNN_JOBS", "2")])
        built = glob.glob(os.path.join(build_dir, "python", "wnn", "_wnn*.so"))
        if not built:
            raise RuntimeError(f"the CMake build in {build_dir} made no _wnn extension")
        target = os.path.join(self.build_lib, "wnn")
        os.makedirs(target, exist_ok=True)
        shutil.copy2(built[0], target)


class BinaryDistribution(Distribution):
    def has_ext_modules(self):
        return True


setup(
    name="wnn",
    version="0.1.0",
    description="WebNN graphs: builder, .webnn files, CPU runtime, PyTorch exporter",
    packages=["wnn", "wnn.torch"],
    package_dir={"": HERE},
    python_requires=">=3.9",
    install_requires=["numpy"],
    cmdclass={"build_py": BuildWithCMake},
    distclass=BinaryDistribution,
)
