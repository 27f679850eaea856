package io.tollgate.rules.console;

import static io.restassured.RestAssured.given;
import static io.tollgate.rules.Api.ADMIN;
import static io.tollgate.rules.Api.as;
import static io.tollgate.rules.Api.id;
import static io.tollgate.rules.Api.reading;
import static io.tollgate.rules.Api.rule;
import static io.tollgate.rules.Api.version;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import io.tollgate.rules.TestDatabase;

/** The console's login, session cookie and CSRF rules, and its pages, against the real service and PostgreSQL. */
@QuarkusTest
@WithTestResource(value = TestDatabase.class, scope = TestResourceScope.GLOBAL)
class ConsoleTest {

    static final String TOKEN = "test-admin-token";
    static final String ALICE_TOKEN = "test-alice-token";
    static final List<String> PAGES = List.of("/console/rules", "/console/rules/new", "/console/rules/r1/edit",
            "/console/rules/r1/history", "/console/import", "/console/clients", "/console/tenants/acme",
            "/console/live", "/console/explain");
    static final List<String> NAV = List.of("nav-rules", "nav-import", "nav-clients", "nav-live", "nav-explain");

    @Test
    void loginSetsAnHttpOnlyStrictSessionCookieAndGoesToTheRules() {
        Response answer = Console.post(TOKEN);

        assertThat(answer.statusCode()).isEqualTo(303);
        assertThat(answer.header("Location")).endsWith("/console/rules");
        String cookie = answer.header("Set-Cookie");
        assertThat(cookie).matches("tollgate_session=[A-Za-z0-9_-]{43}; .*")
                .contains("; HttpOnly").contains("; SameSite=Strict").contains("; Path=/")
                .doesNotContain("Secure").doesNotContain(TOKEN);
    }

    @Test
    void aWrongTokenGetsTheFormAgainWithAnErrorAndNoCookie() {
        for (String wrong : List.of("test-admin-token-but-longer", "", "Bearer " + TOKEN)) {
            Response answer = Console.post(wrong);
            assertThat(answer.statusCode()).isEqualTo(401);
            assertThat(answer.header("Set-Cookie")).isNull();
            assertThat(answer.asString()).contains("id=\"login-error\"").contains("id=\"login-form\"")
                    .doesNotContain(wrong.isEmpty() ? "value=\"\"" : wrong);
        }
    }

    @Test
    void everyPageWithoutASessionRedirectsToTheLogin() {
        for (String page : PAGES) {
            given().redirects().follow(false).get(page).then().statusCode(303).header("Location", "/console/login");
            given().redirects().follow(false).cookie(Console.COOKIE, "made-up").get(page)
                    .then().statusCode(303).header("Location", "/console/login");
        }
        given().redirects().follow(false).get("/console").then().statusCode(303).header("Location", "/console/login");
        given().get("/console/login").then().statusCode(200).body(containsString("id=\"token\""))
                .body(containsString("<label for=\"token\">Admin token</label>"));
    }

    @Test
    void everyPageCarriesTheNavAndTheCsrfTokenButNeverTheAdminToken() {
        Console console = Console.login(TOKEN);
        for (String page : PAGES) {
            String html = console.cookie().get(page).then().statusCode(200).contentType(ContentType.HTML)
                    .header("Cache-Control", "no-store")
                    .header("Content-Security-Policy", containsString("script-src 'self'"))
                    .extract().asString();
            assertThat(html).contains("<meta name=\"csrf-token\" content=\"" + console.csrf() + "\">")
                    .contains("id=\"logout\"").contains("<h1>").doesNotContain(TOKEN).doesNotContain(console.session());
            NAV.forEach(id -> assertThat(html).as(page + " has #" + id).contains("id=\"" + id + "\""));
        }
        assertThat(Console.post("wrong-" + TOKEN).asString()).doesNotContain(TOKEN);
    }

    @Test
    void aPageReachedByAnotherSpellingOfItsPathCarriesTheSameHeaders() throws Exception {
        Console console = Console.login(TOKEN);
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        for (String spelling : List.of("//console/rules", "/console//rules", "/%63onsole/rules", "/console/./rules")) {
            HttpResponse<String> page = http.send(HttpRequest
                    .newBuilder(URI.create("http://127.0.0.1:" + RestAssured.port + spelling))
                    .header("Cookie", Console.COOKIE + "=" + console.session()).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(page.statusCode()).as(spelling).isEqualTo(200);
            assertThat(page.headers().firstValue("Content-Security-Policy")).as(spelling).get().asString()
                    .contains("script-src 'self'");
            assertThat(page.headers().firstValue("Cache-Control")).as(spelling).hasValue("no-store");
        }
    }

    @Test
    void aWriteWithTheCookieButWithoutOrWithAWrongCsrfTokenIs403AndChangesNothing() {
        Console console = Console.login(TOKEN);
        String id = id("csrf");
        long before = version();

        console.cookie().contentType(ContentType.JSON).body(rule(id, 1)).post("/api/v1/rules")
                .then().statusCode(403).contentType("application/problem+json").body("type", is("csrf"));
        console.cookie().header("X-CSRF-Token", console.csrf() + "x").contentType(ContentType.JSON)
                .body(rule(id, 1)).put("/api/v1/rules/" + id).then().statusCode(403).body("type", is("csrf"));
        console.cookie().header("X-CSRF-Token", Console.login(TOKEN).csrf()).contentType(ContentType.JSON)
                .body("{\"rules\": []}").put("/api/v1/rules").then().statusCode(403).body("type", is("csrf"));

        assertThat(version()).isEqualTo(before);
        reading().get("/api/v1/rules/" + id).then().statusCode(404);
    }

    @Test
    void aWriteWithTheCookieAndItsCsrfTokenWorksAndTheHistoryNamesTheActor() {
        Console admin = Console.login(TOKEN);
        Console alice = Console.login(ALICE_TOKEN);
        String id = id("console");

        admin.api().body(rule(id, 1)).post("/api/v1/rules").then().statusCode(201);
        alice.api().body(rule(id, 2)).put("/api/v1/rules/" + id).then().statusCode(200);

        reading().get("/api/v1/rules/" + id + "/history").then().statusCode(200)
                .body("revisions.actor", is(List.of("admin", "alice")));
    }

    @Test
    void theBearerTokenWorksAsBeforeWithOrWithoutACookie() {
        String id = id("bearer");
        as(ADMIN).body(rule(id, 1)).post("/api/v1/rules").then().statusCode(201);
        // a bearer call needs no CSRF token, even from a client that happens to hold a stale cookie
        as(ADMIN).cookie(Console.COOKIE, "ended").body(rule(id, 2)).put("/api/v1/rules/" + id).then().statusCode(200);
        reading().get("/api/v1/rules/" + id + "/history").then().body("revisions.actor", is(List.of("admin", "admin")));
    }

    @Test
    void logoutNeedsTheCsrfTokenAndEndsTheSession() {
        Console console = Console.login(TOKEN);

        console.cookie().contentType(ContentType.URLENC).formParam("csrf_token", "wrong").post("/console/logout")
                .then().statusCode(403).contentType("application/problem+json").body("type", is("csrf"));
        console.cookie().get("/console/rules").then().statusCode(200);

        Response out = console.cookie().contentType(ContentType.URLENC).formParam("csrf_token", console.csrf())
                .post("/console/logout");
        assertThat(out.statusCode()).isEqualTo(303);
        assertThat(out.header("Location")).endsWith("/console/login");
        assertThat(out.header("Set-Cookie")).startsWith("tollgate_session=;").contains("Max-Age=0");

        console.cookie().get("/console/rules").then().statusCode(303).header("Location", "/console/login");
        console.api().body(rule(id("ended"), 1)).post("/api/v1/rules").then().statusCode(401)
                .contentType("application/problem+json").body("type", is("unauthorized"));
    }

    @Test
    void assetsAreLongCachedAndAPageWeighsUnder150KB() {
        Console console = Console.login(TOKEN);
        for (String page : PAGES) {
            String html = console.cookie().get(page).asString();
            long bytes = html.length();
            Matcher assets = Pattern.compile("(?:href|src)=\"(/console/assets/[^\"]+)\"").matcher(html);
            List<String> urls = assets.results().map(m -> m.group(1)).toList();
            assertThat(urls).hasSize(2);
            for (String url : urls) {
                Response asset = given().header("Accept-Encoding", "gzip").get(url);
                assertThat(asset.statusCode()).isEqualTo(200);
                assertThat(asset.header("Cache-Control")).isEqualTo("public, max-age=31536000, immutable");
                bytes += asset.asByteArray().length;
            }
            // the modules a page's script imports: every asset at most, so a bound on all of them
            assertThat(bytes).as(page).isLessThan(150 * 1024);
        }
        given().get("/console/assets/0000/console.css").then().statusCode(200).header("Cache-Control", "no-cache");
        given().get("/console/assets/0000/nothing.js").then().statusCode(404);
    }

    @Test
    void aClientIsReadAndWrittenByTheDigestOfItsKeyThroughTheSession() {
        Console console = Console.login(TOKEN);
        String key = id("ak_console");
        String digest = io.tollgate.rules.domain.ClientDigest.of(key);
        as(ADMIN).body("{\"label\": \"console client\"}").header("X-API-Key", key).put("/api/v1/clients/key").then()
                .statusCode(201);

        String etag = console.cookie().get("/api/v1/clients/digest/" + digest).then().statusCode(200)
                .body("label", is("console client")).body("digest", is(digest)).extract().header("ETag");
        console.api().header("If-Match", etag).body("{\"label\": \"renamed\"}")
                .put("/api/v1/clients/digest/" + digest).then().statusCode(200).body("label", is("renamed"))
                .body(not(containsString(key)));
        reading().header("X-API-Key", key).get("/api/v1/clients/key/history").then().body("revisions.actor",
                is(List.of("admin", "admin")));
        reading().get("/api/v1/clients/digest/" + "0".repeat(64)).then().statusCode(404);
    }
}
