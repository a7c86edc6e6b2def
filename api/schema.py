"""The OpenAPI schema's description of the Bearer token (loaded from ``ApiConfig.ready``)."""

from drf_spectacular.extensions import OpenApiAuthenticationExtension

COMMITTED_SCHEMA = "openapi.json"  # beside this file; tests/api/test_schema.py compares


class BearerTokenScheme(OpenApiAuthenticationExtension):
    target_class = "api.authentication.BearerTokenAuthentication"
    name = "bearerToken"

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "A personal API token (account page or `manage.py create_api_token`).",
        }
