"""Our flows as Prefect flows: imported only when a flow run, a deployment or Prefect's loader needs one."""
from __future__ import annotations

from prefect.flows import Flow

from flows.parameters import api_parameters


class PlainParameterFlow(Flow):
    """Parameters go to the API as plain JSON with their URLs' credentials removed
    (flows/parameters.py); the flow itself still gets the values it was called with."""

    def serialize_parameters(self, parameters):
        return api_parameters(parameters, super().serialize_parameters)
