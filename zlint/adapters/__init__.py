"""Front ends that plug zlint's engine into other tools (flake8). Each is a thin adapter."""
