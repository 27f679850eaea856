package io.tollgate.gateway.clients;

import static io.tollgate.gateway.clients.PlansTest.admitted;
import static io.tollgate.gateway.clients.PlansTest.get;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.tollgate.gateway.support.GatewayControl;
import io.tollgate.gateway.support.GatewayResource;

/**
 * The rules service is down when the gateway starts: the rules and the client directory it kept beside them
 * make it ready, and every plan and override they name is enforced.
 */
@QuarkusTest
@WithTestResource(value = GatewayResource.class, initArgs = {
        @ResourceArg(name = "store", value = "memory"),
        @ResourceArg(name = "snapshot", value = "{\"version\":9,\"rules\":[{\"id\":\"plans.key\",\"match\":"
                + "{\"path\":\"/plans/**\"},\"key\":\"api_key\",\"limit\":5,\"period\":\"1h\",\"burst\":5,"
                + PlansTest.PLANS + "}]}"),
        @ResourceArg(name = "directory-snapshot", value = "{\"tenants\":[{\"id\":\"acme\",\"entry\":{\"plan\":\"pro\"}}],"
                + "\"clients\":[{\"key\":\"kept-free\",\"entry\":{\"plan\":\"free\"}},"
                + "{\"key\":\"kept-acme\",\"entry\":{\"tenant\":\"acme\"}},"
                + "{\"key\":\"kept-blocked\",\"entry\":{\"plan\":\"blocked\"}},"
                + "{\"key\":\"kept-contract\",\"entry\":{\"plan\":\"free\",\"overrides\":{\"plans.key\":{\"limit\":7}}}}]}")})
class DirectorySnapshotTest {

    @Test
    void readyFromTheSnapshotsAndEnforcingEveryPlanAndOverride() {
        GatewayControl.awaitVersion(9);
        assertThat(admitted("kept-free")).isEqualTo(2);
        assertThat(admitted("kept-acme")).as("its tenant's plan").isEqualTo(10);
        assertThat(admitted("kept-contract")).as("its override").isEqualTo(7);
        assertThat(admitted("kept-blocked")).isZero();
        assertThat(admitted("not-kept")).isEqualTo(5);
        assertThat(get("kept-contract").getHeader("RateLimit-Policy")).isEqualTo("\"plans.key\";q=7;w=3600");
    }
}
