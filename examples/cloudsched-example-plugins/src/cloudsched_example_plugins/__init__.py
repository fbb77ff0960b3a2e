"""Example cloudsched plug-ins (docs/extending.md): each module adds algorithms to one family."""
