package io.tollgate.gateway.clients;

import org.junit.jupiter.api.Test;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.tollgate.gateway.support.GatewayResource;

/** A tenant's clients share its budget, all-or-nothing with their own, on a standalone Redis. */
@QuarkusTest
@WithTestResource(value = GatewayResource.class, initArgs = @ResourceArg(name = "store.timeout", value = "1s"))
class TenantsTest {

    @Test
    void twoClientsShareTheTenantsBudgetAndARejectedRequestSpendsNoneOfTheirOwn() {
        TenantBudget.run();
    }
}
