package io.tollgate.gateway.clients;

import java.util.Map;

/**
 * One immutable state of the gateway's copy of the directory, as of change {@code seq}: readers take it whole
 * from one volatile read, writers publish a new one.
 *
 * @param seq the last change it includes
 * @param clients the clients by digest
 * @param tenants each tenant's plan and overrides, by id (unmodifiable)
 */
record DirectoryCopy(long seq, ClientTable clients, Map<String, PlanAndOverrides> tenants) {

    static final DirectoryCopy EMPTY = new DirectoryCopy(0, ClientTable.EMPTY, Map.of());
}
