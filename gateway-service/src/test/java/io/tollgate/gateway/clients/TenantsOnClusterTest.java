package io.tollgate.gateway.clients;

import org.junit.jupiter.api.Test;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.tollgate.gateway.support.GatewayResource;

/** The same on a real Redis Cluster: a client's buckets and its tenant's share one slot, so one call checks both. */
@QuarkusTest
@WithTestResource(value = GatewayResource.class, initArgs = {
        @ResourceArg(name = "redis", value = "cluster"),
        @ResourceArg(name = "store.timeout", value = "2s")})
class TenantsOnClusterTest {

    @Test
    void twoClientsShareTheTenantsBudgetInOneSlot() {
        TenantBudget.run();
    }
}
