"""The production static files storage: WhiteNoise's compressed manifest storage, with the front end's
ES module imports (``import … from "./x.js"``) rewritten to the hashed names, as ``{% static %}`` does
for the entry module in the template. Without it a hashed module would import its dependencies by their
plain names, which WhiteNoise serves with a short cache lifetime and which a new deployment replaces
under a page still running the old modules.
"""

from whitenoise.storage import CompressedManifestStaticFilesStorage


class ModuleManifestStorage(CompressedManifestStaticFilesStorage):
    support_js_module_import_aggregation = True
