package io.tollgate.rules.api;

import static io.tollgate.rules.Api.ADMIN;
import static io.tollgate.rules.Api.as;
import static io.tollgate.rules.Api.reading;
import static io.tollgate.rules.Directory.digest;
import static io.tollgate.rules.Directory.importClients;
import static io.tollgate.rules.Directory.key;
import static io.tollgate.rules.Directory.putClient;
import static io.tollgate.rules.Directory.putTenant;
import static io.tollgate.rules.Directory.seq;
import static io.tollgate.rules.Directory.tenantId;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import io.tollgate.rules.Directory;
import io.tollgate.rules.SseClient;
import io.tollgate.rules.TestDatabase;
import io.tollgate.rules.domain.ClientEntry;
import io.tollgate.rules.domain.DirectoryChanges;
import io.tollgate.rules.domain.DirectoryChanges.ClientChange;
import io.tollgate.rules.domain.DirectoryChanges.TenantChange;
import io.tollgate.rules.domain.DirectoryCodec;
import io.tollgate.rules.domain.DirectoryCopyFormat;
import io.tollgate.rules.domain.TenantEntry;

/**
 * What gateways read: {@code GET /api/v1/directory?since=&limit=} pages (read back with THE directory codec, as
 * a gateway does) and the watch stream's {@code directory} events.
 */
@QuarkusTest
@WithTestResource(value = TestDatabase.class, scope = TestResourceScope.GLOBAL)
class DirectoryFeedTest {

    private final DirectoryCodec codec = new DirectoryCodec();

    @BeforeEach
    void rules() {
        Directory.rules();
    }

    @Test
    void pagesCarryTheLatestStateOfEachEntryOldestFirstWithTombstones() {
        long s = seq();
        String tenant = tenantId("feed");
        String a = key("feed-a");
        String b = key("feed-b");
        putTenant(tenant, "{\"plan\": \"enterprise\"}").then().statusCode(201); // s+1
        putClient(a, "{\"tenant\": \"" + tenant + "\"}").then().statusCode(201); // s+2
        putClient(b, "{\"label\": \"b\"}").then().statusCode(201); // s+3
        putClient(a, "{\"tenant\": \"" + tenant + "\", \"plan\": \"free\"}").then().statusCode(200); // s+4
        as(ADMIN).header("X-API-Key", b).delete("/api/v1/clients/key").then().statusCode(204); // s+5
        putClient(a, "{\"tenant\": \"" + tenant + "\", \"plan\": \"pro\"}").then().statusCode(200); // s+6

        DirectoryChanges all = page(s, null);
        assertThat(all.seq()).isEqualTo(s + 6);
        assertThat(all.more()).isFalse();
        assertThat(all.tenants()).extracting(TenantChange::id).containsExactly(tenant);
        assertThat(all.tenants().get(0).entry().plan()).isEqualTo("enterprise");
        assertThat(all.clients()).extracting(ClientChange::digest).containsExactly(digest(b), digest(a));
        assertThat(all.clients().get(0).deleted()).isTrue();
        assertThat(all.clients().get(1).entry().plan()).as("the latest state only").isEqualTo("pro");

        DirectoryChanges first = page(s, 2);
        assertThat(first.seq()).isEqualTo(s + 5);
        assertThat(first.more()).isTrue();
        assertThat(first.tenants()).hasSize(1);
        assertThat(first.clients()).extracting(ClientChange::digest).containsExactly(digest(b));
        DirectoryChanges rest = page(first.seq(), 2);
        assertThat(rest.seq()).isEqualTo(s + 6);
        assertThat(rest.more()).isFalse();
        assertThat(rest.clients()).extracting(ClientChange::digest).containsExactly(digest(a));

        DirectoryChanges none = page(s + 6, null);
        assertThat(none.seq()).as("an empty page keeps since").isEqualTo(s + 6);
        assertThat(none.tenants()).isEmpty();
        assertThat(none.clients()).isEmpty();
        String json = reading().queryParam("since", s).get("/api/v1/directory").asString();
        assertThat(json).contains("\"deleted\":true").doesNotContain(b);
    }

    @Test
    void aPageAskedForAgainHoldsWhatChangedSinceItWasFirstRead() {
        long s = seq();
        String a = key("again-a");
        putClient(a, "{\"label\": \"a\"}").then().statusCode(201);
        DirectoryChanges first = page(s, 5);
        assertThat(page(s, 5)).as("the same page while nothing changed").isEqualTo(first);

        String b = key("again-b");
        putClient(b, "{\"label\": \"b\"}").then().statusCode(201);
        putClient(a, "{\"label\": \"a\", \"plan\": \"pro\"}").then().statusCode(200);
        DirectoryChanges after = page(s, 5);
        assertThat(after.seq()).isEqualTo(s + 3);
        assertThat(after.clients()).extracting(ClientChange::digest).containsExactly(digest(b), digest(a));
        assertThat(after.clients().get(1).entry().plan()).isEqualTo("pro");
    }

    @Test
    void aSinceAheadOfTheDirectoryStartsOverWithAResetHeader() {
        putTenant(tenantId("reset"), "{}").then().statusCode(201);
        putTenant(tenantId("reset-2"), "{}").then().statusCode(201); // two at least: a page of one says more
        long current = seq();
        Response ahead = reading().queryParam("since", current + 1000).queryParam("limit", 1).get("/api/v1/directory");
        ahead.then().statusCode(200).header("Tollgate-Directory-Reset", "true");
        DirectoryChanges page = codec.parseChanges(ahead.asByteArray());
        assertThat(page.tenants().size() + page.clients().size()).isEqualTo(1);
        assertThat(page.seq()).isLessThanOrEqualTo(current);
        assertThat(page.more()).isTrue();
        assertThat(reading().queryParam("since", current).get("/api/v1/directory").header("Tollgate-Directory-Reset"))
                .isNull();
    }

    @Test
    void badSinceOrLimitIs400() {
        reading().queryParam("since", "-1").get("/api/v1/directory").then().statusCode(400)
                .contentType("application/problem+json");
        reading().queryParam("since", "yesterday").get("/api/v1/directory").then().statusCode(400);
        reading().queryParam("limit", 50_001).get("/api/v1/directory").then().statusCode(400);
        reading().queryParam("limit", 0).get("/api/v1/directory").then().statusCode(400);
    }

    @Test
    void aDirectoryChangeReachesAWatcherAsADirectoryEvent() {
        try (SseClient watch = SseClient.open("/api/v1/rules/watch")) {
            await().atMost(Duration.ofSeconds(5)).until(() -> !watch.comments().isEmpty());
            long writtenAt = System.nanoTime();
            String etag = putClient(key("watched"), "{\"label\": \"watched\"}").header("ETag");
            long seq = Long.parseLong(etag.replace("\"", ""));

            await().atMost(Duration.ofSeconds(1))
                    .until(() -> watch.events("directory").stream().anyMatch(e -> e.data().equals(
                            "{\"seq\":" + seq + "}")));
            SseClient.Event event = watch.events("directory").get(watch.events("directory").size() - 1);
            assertThat(Duration.ofNanos(event.arrivedNanos() - writtenAt)).isLessThan(Duration.ofSeconds(1));
            assertThat(watch.events("rules")).isEmpty();

            // one import: its changes may come as one event, the last carrying the import's seq
            String tenant = tenantId("watched");
            putTenant(tenant, "{}").then().statusCode(201);
            int after = importClients(line("ak_w1_" + tenant) + "\n" + line("ak_w2_" + tenant), false).then()
                    .statusCode(200).extract().path("seq");
            await().atMost(Duration.ofSeconds(1)).until(() -> watch.events("directory").stream()
                    .anyMatch(e -> e.data().equals("{\"seq\":" + after + "}")));
        }
    }

    @Test
    void aWholeCopyHoldsEveryLiveEntryAsOfOneChangeTheLabelsLeftOut() throws IOException {
        String tenant = tenantId("copy");
        String a = key("copy-a");
        String b = key("copy-b");
        String gone = key("copy-gone");
        putTenant(tenant, "{\"plan\": \"enterprise\"}").then().statusCode(201);
        putClient(a, "{\"tenant\": \"" + tenant + "\", \"plan\": \"pro\", \"label\": \"a\"}").then().statusCode(201);
        putClient(b, "{\"tenant\": \"" + tenant + "\", \"plan\": \"pro\", \"label\": \"b\"}").then().statusCode(201);
        putClient(gone, "{\"plan\": \"free\"}").then().statusCode(201);
        as(ADMIN).header("X-API-Key", gone).delete("/api/v1/clients/key").then().statusCode(204);
        long written = seq();

        Response answer = reading().get("/api/v1/directory/copy");
        answer.then().statusCode(200).contentType(DirectoryCopyFormat.MEDIA_TYPE);
        Map<String, TenantEntry> tenants = new HashMap<>();
        List<ClientEntry> profiles = new ArrayList<>();
        Map<String, Integer> clients = new LinkedHashMap<>();
        DirectoryCopyFormat.Header header = DirectoryCopyFormat.read(new ByteArrayInputStream(answer.asByteArray()),
                new DirectoryCopyFormat.Visitor() {

                    @Override
                    public void tenant(String id, TenantEntry entry) {
                        tenants.put(id, entry);
                    }

                    @Override
                    public void profile(ClientEntry entry) {
                        profiles.add(entry);
                    }

                    @Override
                    public void client(long w, long x, long y, long z, int profile) {
                        clients.put(String.format("%016x%016x%016x%016x", w, x, y, z), profile);
                    }
                });
        assertThat(header.seq()).as("as of the last change or later").isGreaterThanOrEqualTo(written);
        assertThat(answer.header("Tollgate-Directory-Seq")).isEqualTo(Long.toString(header.seq()));
        assertThat(tenants.get(tenant).plan()).isEqualTo("enterprise");
        assertThat(clients).containsKeys(digest(a), digest(b)).doesNotContainKey(digest(gone));
        assertThat(clients.get(digest(a))).as("two clients that differ by label share a profile")
                .isEqualTo(clients.get(digest(b)));
        ClientEntry profile = profiles.get(clients.get(digest(a)));
        assertThat(profile.tenant()).isEqualTo(tenant);
        assertThat(profile.plan()).isEqualTo("pro");
        assertThat(profile.label()).as("labels stay in the rules service").isNull();
        assertThat(new ArrayList<>(clients.keySet())).as("in digest order").isSorted();
    }

    @Test
    void aPageSaysTheDirectorysLastChange() {
        putClient(key("page-seq"), "{}").then().statusCode(201);
        long current = seq();
        reading().queryParam("since", 0).queryParam("limit", 1).get("/api/v1/directory").then().statusCode(200)
                .header("Tollgate-Directory-Seq", Long.toString(current));
    }

    private DirectoryChanges page(long since, Integer limit) {
        var request = reading().queryParam("since", since);
        if (limit != null) {
            request.queryParam("limit", limit);
        }
        Response r = request.get("/api/v1/directory");
        r.then().statusCode(200).contentType("application/json");
        return codec.parseChanges(r.asString().getBytes(StandardCharsets.UTF_8));
    }

    private static String line(String key) {
        return "{\"key\": \"" + key + "\"}";
    }
}
