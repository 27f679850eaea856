package io.tollgate.rules.api;

import static io.restassured.RestAssured.given;
import static io.tollgate.rules.Api.ADMIN;
import static io.tollgate.rules.Api.ALICE;
import static io.tollgate.rules.Api.as;
import static io.tollgate.rules.Api.reading;
import static io.tollgate.rules.Directory.digest;
import static io.tollgate.rules.Directory.key;
import static io.tollgate.rules.Directory.putClient;
import static io.tollgate.rules.Directory.putTenant;
import static io.tollgate.rules.Directory.seq;
import static io.tollgate.rules.Directory.tenantId;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import io.tollgate.rules.Directory;
import io.tollgate.rules.TestDatabase;

/** Tenants and clients one at a time: CRUD with ETag, If-Match, history, 409, listing, key bounds, auth. */
@QuarkusTest
@WithTestResource(value = TestDatabase.class, scope = TestResourceScope.GLOBAL)
class DirectoryApiTest {

    @BeforeEach
    void rules() {
        Directory.rules();
    }

    @Test
    void aClientIsCreatedReadReplacedAndDeletedWithETagsAndHistory() {
        String tenant = tenantId("acme");
        putTenant(tenant, "{\"plan\": \"pro\", \"label\": \"Acme\"}").then().statusCode(201);
        String key = key("crud");
        long before = seq();

        Response created = putClient(key, "{\"tenant\": \"" + tenant + "\", \"label\": \"Acme production\"}");
        created.then().statusCode(201)
                .header("ETag", "\"" + (before + 1) + "\"")
                .body("digest", is(digest(key)))
                .body("tenant", is(tenant))
                .body("label", is("Acme production"))
                .body("plan", nullValue());
        reading().header("X-API-Key", key).get("/api/v1/clients/key").then().statusCode(200)
                .header("ETag", "\"" + (before + 1) + "\"")
                .body("digest", is(digest(key))).body("tenant", is(tenant));
        reading().header("If-None-Match", "\"" + (before + 1) + "\"").header("X-API-Key", key).get("/api/v1/clients/key").then()
                .statusCode(304);

        // the same entry again: no change, no new seq
        putClient(key, "{\"label\": \"Acme production\", \"tenant\": \"" + tenant + "\"}").then().statusCode(200)
                .header("ETag", "\"" + (before + 1) + "\"");
        assertThat(seq()).isEqualTo(before + 1);

        String replaced = "{\"tenant\": \"" + tenant + "\", \"plan\": \"free\","
                + " \"overrides\": {\"dir.orders\": {\"limit\": 500, \"period\": \"1m\"}}}";
        as(ALICE).header("If-Match", "\"" + before + "\"").body(replaced).header("X-API-Key", key).put("/api/v1/clients/key")
                .then()
                .statusCode(412).contentType("application/problem+json");
        as(ALICE).header("If-Match", "\"" + (before + 1) + "\"").body(replaced).header("X-API-Key", key)
                .put("/api/v1/clients/key").then()
                .statusCode(200)
                .header("ETag", "\"" + (before + 2) + "\"")
                .body("plan", is("free"))
                .body("overrides.'dir.orders'.limit", is(500))
                .body("overrides.'dir.orders'.period", is("1m"));

        as(ADMIN).header("If-Match", "\"" + (before + 1) + "\"").header("X-API-Key", key).delete("/api/v1/clients/key").then()
                .statusCode(412);
        as(ADMIN).header("X-API-Key", key).delete("/api/v1/clients/key").then().statusCode(204);
        reading().header("X-API-Key", key).get("/api/v1/clients/key").then().statusCode(404)
                .contentType("application/problem+json");
        as(ADMIN).header("X-API-Key", key).delete("/api/v1/clients/key").then().statusCode(404);
        assertThat(seq()).isEqualTo(before + 3);

        reading().header("X-API-Key", key).get("/api/v1/clients/key/history").then().statusCode(200)
                .body("digest", is(digest(key)))
                .body("revisions.seq", contains((int) before + 1, (int) before + 2, (int) before + 3))
                .body("revisions.operation", contains("create", "replace", "delete"))
                .body("revisions.actor", contains("admin", "alice", "admin"))
                .body("revisions[1].entry.plan", is("free"))
                .body("revisions[2].entry.plan", is("free"));
        reading().header("X-API-Key", key("never")).get("/api/v1/clients/key/history").then().statusCode(404);
    }

    @Test
    void aTenantIsCreatedReplacedAndDeletedOnlyWithoutClients() {
        String tenant = tenantId("globex");
        putTenant(tenant, "{\"plan\": \"enterprise\", \"overrides\": {\"dir.tenant\": {\"limit\": 9000}}}").then()
                .statusCode(201).body("id", is(tenant)).body("overrides.'dir.tenant'.limit", is(9000));
        String etag = reading().get("/api/v1/tenants/" + tenant).then().statusCode(200).body("plan", is("enterprise"))
                .extract().header("ETag");
        as(ADMIN).header("If-Match", etag).body("{\"label\": \"Globex\"}").put("/api/v1/tenants/" + tenant).then()
                .statusCode(200).body("label", is("Globex")).body("plan", nullValue());
        String key = key("globex");
        putClient(key, "{\"tenant\": \"" + tenant + "\"}").then().statusCode(201);
        long before = seq();

        as(ADMIN).delete("/api/v1/tenants/" + tenant).then().statusCode(409).contentType("application/problem+json");
        assertThat(seq()).isEqualTo(before);
        as(ADMIN).header("X-API-Key", key).delete("/api/v1/clients/key").then().statusCode(204);
        as(ADMIN).delete("/api/v1/tenants/" + tenant).then().statusCode(204);
        reading().get("/api/v1/tenants/" + tenant).then().statusCode(404);
        reading().get("/api/v1/tenants/" + tenant + "/history").then().statusCode(200)
                .body("id", is(tenant))
                .body("revisions.operation", contains("create", "replace", "delete"));
        // a deleted tenant is not a tenant
        putClient(key, "{\"tenant\": \"" + tenant + "\"}").then().statusCode(422).body("errors.field", hasItem("tenant"));
    }

    @Test
    void listingPagesByDigestWithAnOpaqueCursor() {
        String tenant = tenantId("paged");
        putTenant(tenant, "{}").then().statusCode(201);
        for (int i = 0; i < 5; i++) {
            putClient(key("paged" + i), "{\"tenant\": \"" + tenant + "\", \"label\": \"client " + i + "\"}").then()
                    .statusCode(201);
        }
        Response first = reading().queryParam("tenant", tenant).queryParam("limit", 3).get("/api/v1/clients");
        first.then().statusCode(200).body("clients.size()", is(3)).body("clients[0].tenant", is(tenant));
        String cursor = first.jsonPath().getString("next");
        Response second = reading().queryParam("tenant", tenant).queryParam("cursor", cursor).queryParam("limit", 3)
                .get("/api/v1/clients");
        second.then().statusCode(200).body("clients.size()", is(2)).body("next", nullValue());

        var digests = new java.util.ArrayList<>(first.jsonPath().getList("clients.digest", String.class));
        digests.addAll(second.jsonPath().getList("clients.digest", String.class));
        assertThat(digests).isSorted().doesNotHaveDuplicates().hasSize(5);
        assertThat(first.jsonPath().getList("clients.label", String.class)).allMatch(l -> l.startsWith("client "));

        reading().queryParam("limit", 0).get("/api/v1/clients").then().statusCode(400)
                .contentType("application/problem+json").body("errors.field", hasItem("limit"));
        reading().queryParam("cursor", "!!").get("/api/v1/clients").then().statusCode(400);
        reading().get("/api/v1/tenants").then().statusCode(200).body("tenants.id", hasItem(tenant));
    }

    @Test
    void clientsAreLookedUpByDigestTheirLabelsWithThem() {
        String labelled = key("by-digest");
        putClient(labelled, "{\"label\": \"Acme production\"}").then().statusCode(201);
        String unknown = io.tollgate.rules.domain.ClientDigest.of(key("never-written"));
        String digest = io.tollgate.rules.domain.ClientDigest.of(labelled);

        reading().queryParam("digest", digest, unknown).get("/api/v1/clients")
                .then()
                .statusCode(200)
                .body("clients.size()", is(1))
                .body("clients[0].digest", is(digest))
                .body("clients[0].label", is("Acme production"))
                .body("next", nullValue());
        reading().queryParam("digest", "not-hex").get("/api/v1/clients")
                .then()
                .statusCode(400)
                .contentType("application/problem+json")
                .body("errors.field", hasItem("digest"));
        reading().queryParam("digest", digest).queryParam("tenant", "x").get("/api/v1/clients").then().statusCode(400);
    }

    @Test
    void anEmptyOrOverlongKeyIsAProblem() {
        reading().get("/api/v1/clients/").then().statusCode(404).contentType("application/problem+json");
        as(ADMIN).body("{}").put("/api/v1/clients/").then().statusCode(404).contentType("application/problem+json");
        String longKey = "k".repeat(4097);
        long before = seq();
        putClient(longKey, "{}").then().statusCode(431).contentType("application/problem+json");
        reading().header("X-API-Key", longKey).get("/api/v1/clients/key").then().statusCode(431);
        reading().header("X-API-Key", "").get("/api/v1/clients/key").then().statusCode(400)
                .contentType("application/problem+json").body("errors.field", hasItem("X-API-Key"));
        putClient("k".repeat(4096), "{}").then().statusCode(201);
        assertThat(seq()).isEqualTo(before + 1);
    }

    @Test
    void writesNeedTheToken() {
        String key = key("auth");
        given().body("{}").header("X-API-Key", key).put("/api/v1/clients/key").then().statusCode(401);
        given().header("Authorization", "Bearer nope").body("{}").header("X-API-Key", key).put("/api/v1/clients/key").then()
                .statusCode(403);
        given().body("{}").put("/api/v1/tenants/t-auth").then().statusCode(401);
        given().delete("/api/v1/tenants/t-auth").then().statusCode(401);
        given().header("Content-Type", "application/x-ndjson").body("{\"key\": \"a\"}\n".getBytes()).put("/api/v1/clients")
                .then().statusCode(401).contentType("application/problem+json");
        reading().header("X-API-Key", key).get("/api/v1/clients/key").then().statusCode(404);
    }
}
