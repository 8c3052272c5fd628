"""Packaging beyond what pyproject.toml can say: the top-level ``analysis/`` folder is installed
as the package ``ham_analysis`` (its modules import each other relatively), so an installed ham
never puts a package named ``analysis`` on the path."""
from setuptools import find_packages, setup

setup(packages=find_packages(include=["ham", "ham.*"]) + ["ham_analysis"],
      package_dir={"ham_analysis": "analysis"})
