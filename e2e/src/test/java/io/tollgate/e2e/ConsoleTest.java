package io.tollgate.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;

import org.jboss.logging.Logger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.TestWatcher;
import org.openqa.selenium.Cookie;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.Select;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;

import io.tollgate.e2e.support.Browser;
import io.tollgate.e2e.support.Console;
import io.tollgate.e2e.support.Directory;
import io.tollgate.e2e.support.Fleet;
import io.tollgate.e2e.support.Http;
import io.tollgate.e2e.support.Rules;
import io.tollgate.e2e.support.Stack;

/**
 * The console in a real headless Chromium against the packaged rules service, PostgreSQL, Redis Cluster and one
 * packaged gateway: what an operator does in it, checked both on the page (by the console's stable element ids)
 * and through the API or the gateway, so a page that only looks right fails. Every page is saved as a screenshot
 * under {@code e2e/target/screenshots/console-*.png}, and so is the page of a test that fails.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsoleTest {

    private static final Logger LOG = Logger.getLogger(ConsoleTest.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    /**
     * The live view reads the gateways' metrics when it refreshes (every 5 s), and a gateway is on it once one of
     * its polls carried the admin token: longer than a page's own wait.
     */
    private static final Duration LIVE = Duration.ofSeconds(45);

    private static Stack stack;
    private static Browser browser;
    private static Console console;

    @RegisterExtension
    static final TestWatcher SCREENSHOT_ON_FAILURE = new TestWatcher() {

        @Override
        public void testFailed(ExtensionContext context, Throwable cause) {
            if (browser != null) {
                browser.screenshot("console-failed-" + context.getRequiredTestMethod().getName());
                LOG.infof("the browser's console when %s failed:%n  %s%nthe gateways: %s%nlive: %s",
                        context.getDisplayName(), String.join("\n  ", browser.consoleLines()), admin("/api/v1/gateways"),
                        admin("/api/v1/live"));
            }
        }
    };

    @BeforeAll
    static void start() {
        // the stack counts a gateway live for 10 s after its last poll (TOLLGATE_GATEWAYS_LIVE_WINDOW): the live view
        // and explain reach only live gateways, so this one polls well within that, not every 30 s as by default
        stack = Stack.start(1, Map.of("TOLLGATE_RULES_POLL_INTERVAL", "2s"));
        browser = new Browser();
        console = new Console(browser, stack.rulesService().url(""));
        console.login(Stack.ADMIN_TOKEN);
    }

    @AfterAll
    static void stop() {
        if (browser != null) {
            browser.close();
        }
        if (stack != null) {
            stack.close();
        }
    }

    @Test
    @Order(1)
    void aWrongTokenIsRefusedAtTheFormAndTheRightOneOpensTheRulesWithASessionNoScriptCanRead() {
        try (Browser fresh = new Browser()) {
            Console login = new Console(fresh, stack.rulesService().url(""));
            fresh.open(login.url("/console/rules"));
            fresh.awaitPath("/console/login");
            fresh.visible("form#login-form");
            assertThat(fresh.visible("label[for=token]").getText()).isEqualTo("Admin token");
            fresh.screenshot("console-01-login");

            login.submitLogin("not-the-token");
            assertThat(fresh.visible("#login-error").getText()).as("the error the form shows").isNotBlank();
            fresh.awaitPath("/console/login");
            assertThat(fresh.cookie(Console.SESSION_COOKIE)).as("a session after a wrong token").isEmpty();
            fresh.screenshot("console-02-login-error");

            login.login(Stack.ADMIN_TOKEN);
            assertThat(fresh.visible("main h1").getText()).isNotBlank();
            String version = Long.toString(stack.rulesVersion());
            fresh.until("the set's version " + version, d -> fresh.visible("#rules-version").getText().contains(version));
            Cookie session = fresh.driver().manage().getCookieNamed(Console.SESSION_COOKIE);
            assertThat(session).as("the session cookie").isNotNull();
            assertThat(session.isHttpOnly()).as("HttpOnly").isTrue();
            assertThat(session.getSameSite()).isEqualTo("Strict");
            assertThat(session.getPath()).isEqualTo("/");
            assertThat((String) fresh.script("return document.cookie")).doesNotContain(Console.SESSION_COOKIE);
            String stored = (String) fresh.script("return JSON.stringify(localStorage) + JSON.stringify(sessionStorage)");
            assertThat(stored + fresh.currentUrl() + fresh.driver().getPageSource()).doesNotContain(Stack.ADMIN_TOKEN);
            assertThat(login.csrfToken()).isNotBlank();
            for (String nav : List.of("a#nav-rules", "a#nav-import", "a#nav-clients", "a#nav-live", "a#nav-explain",
                    "button#logout")) {
                fresh.visible(nav);
            }
            fresh.screenshot("console-03-rules-after-login");

            fresh.click("button#logout");
            fresh.awaitPath("/console/login");
            fresh.open(login.url("/console/rules"));
            fresh.awaitPath("/console/login");
        }
    }

    @Test
    @Order(2)
    void aNewRuleWithABadLimitShowsTheErrorAtTheLimitAndIsSavedOnceItIsFixed() {
        String id = "console.created";
        console.open("/console/rules");
        browser.click("a#new-rule");
        browser.awaitPath("/console/rules/new");
        browser.visible("form#rule-form");
        browser.fill("textarea#rule-json", """
                {"id": "%s", "match": {"path": "/created/**"}, "key": "api_key", "algorithm": "token_bucket",
                 "limit": 0, "period": "1m", "burst": 10}""".formatted(id));
        long before = stack.rulesVersion();
        browser.click("button#save-rule");

        WebElement error = browser.visible("[data-error-for=\"limit\"]");
        browser.until("the limit's error text", d -> !error.getText().isBlank());
        assertThat(error.getText()).as("the validator's reason, at the limit").contains("at least 1");
        assertThat(browser.currentUrl()).endsWith("/console/rules/new");
        assertThat(stack.rulesVersion()).as("a refused rule takes no version").isEqualTo(before);
        assertThat(rule(id).statusCode()).isEqualTo(404);
        browser.screenshot("console-04-rule-new-error");

        // the common field is kept in sync with the JSON: fixing it there fixes what is sent
        browser.type("input[name=limit]", "7");
        browser.until("the JSON follows the limit field",
                d -> ((String) browser.script("return document.querySelector('#rule-json').value"))
                        .matches("(?s).*\"limit\"\\s*:\\s*7\\b.*"));
        browser.click("button#save-rule");
        browser.awaitPath("/console/rules");
        browser.visible("tr[data-rule-id=\"" + id + "\"]");
        JsonNode saved = json(rule(id));
        assertThat(saved.path("limit").asLong()).isEqualTo(7);
        assertThat(saved.path("burst").asLong()).isEqualTo(10);
        String version = Long.toString(stack.rulesVersion());
        browser.until("the set's version " + version, d -> browser.visible("#rules-version").getText().contains(version));
        browser.screenshot("console-05-rules-with-new-rule");
    }

    @Test
    @Order(3)
    void anEditedRuleShowsBothRevisionsAndTheDiffOfTheChangedLimit() {
        String id = "console.edited";
        long created = stack.putRule(id, Rules.perApiKey(id, "/edited/**", 5, "1m", "closed"));
        console.open("/console/rules");
        browser.click("tr[data-rule-id=\"" + id + "\"] a.edit-rule");
        browser.awaitPath("/console/rules/" + id + "/edit");
        assertThat(browser.visible("input[name=limit]").getAttribute("value")).isEqualTo("5");
        assertThat(browser.visible("input[name=id]").getAttribute("value")).isEqualTo(id);
        browser.type("input[name=limit]", "9");
        browser.screenshot("console-06-rule-edit");
        browser.click("button#save-rule");
        browser.awaitPath("/console/rules");
        assertThat(json(rule(id)).path("limit").asLong()).isEqualTo(9);
        long replaced = stack.rulesVersion();

        browser.click("tr[data-rule-id=\"" + id + "\"] a.rule-history");
        browser.awaitPath("/console/rules/" + id + "/history");
        browser.visible("ol#revisions");
        assertThat(browser.all("ol#revisions li[data-revision]")).hasSize(2);
        assertThat(browser.visible("li[data-revision=\"" + created + "\"]").getText()).contains("admin").contains("create");
        assertThat(browser.visible("li[data-revision=\"" + replaced + "\"]").getText()).contains("admin")
                .contains("replace");
        new Select(browser.visible("select#diff-from")).selectByValue(Long.toString(created));
        new Select(browser.visible("select#diff-to")).selectByValue(Long.toString(replaced));
        browser.until("the diff of the limit", d -> browser.all("#diff .diff-del").stream()
                .anyMatch(line -> line.getText().matches("(?s).*\"limit\"\\s*:\\s*5\\b.*")));
        assertThat(browser.all("#diff .diff-add")).extracting(WebElement::getText)
                .anyMatch(line -> line.matches("(?s).*\"limit\"\\s*:\\s*9\\b.*"))
                .noneMatch(line -> line.contains("\"period\""));
        assertThat(browser.all("#diff .diff-del")).extracting(WebElement::getText)
                .noneMatch(line -> line.contains("\"period\""));
        browser.screenshot("console-07-rule-history-diff");
    }

    @Test
    @Order(4)
    void aYamlSetIsAppliedOnlyAfterItsDryRunShowsWhatChanges() throws Exception {
        stack.putRule("import.gone", Rules.perApiKey("import.gone", "/gone/**", 5, "1m", "closed"));
        stack.putRule("import.changed", Rules.perApiKey("import.changed", "/changed/**", 5, "1m", "closed"));
        // the set as it is, less one rule, with one changed and one added: an import replaces the whole set
        ArrayNode rules = (ArrayNode) json(Http.get(stack.rulesService().url("/api/v1/rules"), Stack.ADMIN)).path("rules");
        ArrayNode next = JSON.createArrayNode();
        for (JsonNode rule : rules) {
            String id = rule.path("id").asText();
            if (id.equals("import.changed")) {
                next.add(((ObjectNode) rule.deepCopy()).put("limit", 50).put("burst", 50));
            } else if (!id.equals("import.gone")) {
                next.add(rule);
            }
        }
        next.add(JSON.readTree(Rules.perApiKey("import.added", "/added/**", 3, "1m", "open")));
        String yaml = new YAMLMapper().writeValueAsString(Map.of("rules", next));
        long before = stack.rulesVersion();

        console.open("/console/import");
        browser.fill("textarea#ruleset-text", yaml);
        assertThat(browser.visible("button#apply").isEnabled()).as("apply before a dry run").isFalse();
        browser.click("button#dry-run");
        browser.visible("#dry-run-result [data-change=\"added\"][data-rule-id=\"import.added\"]");
        browser.visible("#dry-run-result [data-change=\"changed\"][data-rule-id=\"import.changed\"]");
        browser.visible("#dry-run-result [data-change=\"removed\"][data-rule-id=\"import.gone\"]");
        assertThat(browser.all("#dry-run-result [data-change]")).as("only what changes").hasSize(3);
        browser.until("apply enabled by the dry run", d -> browser.visible("button#apply").isEnabled());
        assertThat(stack.rulesVersion()).as("a dry run writes nothing").isEqualTo(before);
        browser.screenshot("console-08-import-dry-run");

        // another text is another set: it needs its own dry run
        browser.fill("textarea#ruleset-text", yaml + "\n");
        browser.until("apply disabled by an edit", d -> !browser.visible("button#apply").isEnabled());
        browser.click("button#dry-run");
        browser.until("apply enabled by the second dry run", d -> browser.visible("button#apply").isEnabled());
        browser.click("button#apply");

        browser.until("the applied version",
                d -> browser.visible("#apply-result").getText().contains(Long.toString(before + 1)));
        assertThat(stack.rulesVersion()).isEqualTo(before + 1);
        assertThat(rule("import.gone").statusCode()).isEqualTo(404);
        assertThat(json(rule("import.changed")).path("limit").asLong()).isEqualTo(50);
        assertThat(json(rule("import.added")).path("limit").asLong()).isEqualTo(3);
        browser.screenshot("console-09-import-applied");
    }

    @Test
    @Order(5)
    void anOverrideSetInTheConsoleIsWhatTheGatewayEnforcesAndItsRemovalLiftsIt() {
        String ruleId = "console.override";
        String path = limitedPerHour(ruleId, "/override", 100);
        String tenant = "console-tenant";
        Directory directory = new Directory(stack);
        directory.putTenant(tenant, "{\"label\": \"Console Tenant\"}");
        String key = Fleet.freshKey("console-override");
        directory.putClient(key, "{\"tenant\": \"" + tenant + "\", \"label\": \"console client\"}");

        console.open("/console/clients");
        browser.type("input#api-key", key);
        browser.click("button#find-client");
        browser.until("the client found", d -> browser.visible("#client-label").getText().equals("console client"));
        assertThat(browser.visible("#client-tenant").getText()).contains(tenant);
        browser.screenshot("console-10-client");

        new Select(browser.visible("select#override-rule")).selectByValue(ruleId);
        browser.type("input#override-limit", "2");
        browser.type("input#override-period", "1h");
        browser.type("input#override-burst", "2");
        browser.click("button#set-override");
        browser.visible("table#overrides tr[data-rule-id=\"" + ruleId + "\"]");
        JsonNode entry = json(directory.client(key));
        assertThat(entry.path("overrides").path(ruleId).path("limit").asLong()).as("the override as stored: %s", entry)
                .isEqualTo(2);
        browser.screenshot("console-11-client-override");

        // the gateway applies it: explain (which spends nothing) reports it, then requests get its 2, no more
        browser.until("the gateway applies the override", d -> explained(key, path, ruleId).path("source").asText()
                .equals("override"));
        assertThat(statuses(5, path, key)).as("5 requests under an override of 2 an hour")
                .containsExactly(200, 200, 429, 429, 429);
        assertThat(stack.call(0, "GET", path, Fleet.freshKey("other")).statusCode()).as("another client").isEqualTo(200);

        browser.click("table#overrides tr[data-rule-id=\"" + ruleId + "\"] button.remove-override");
        browser.until("the override row gone",
                d -> browser.all("table#overrides tr[data-rule-id=\"" + ruleId + "\"]").isEmpty());
        assertThat(json(directory.client(key)).path("overrides").path(ruleId).isMissingNode()).isTrue();
        browser.until("the gateway lifts the override", d -> explained(key, path, ruleId).path("source").asText()
                .equals("rule"));

        browser.click("#client-tenant");
        browser.awaitPath("/console/tenants/" + tenant);
        browser.until("the tenant's clients list the client",
                d -> browser.visible("ul#tenant-clients").getText().contains("console client"));
        browser.screenshot("console-12-tenant");
    }

    @Test
    @Order(6)
    void theLiveViewShowsTheGatewayAndARejectionThisTestCaused() {
        String ruleId = "console.live";
        String path = limitedPerHour(ruleId, "/live", 1);
        String key = Fleet.freshKey("console-live");
        assertThat(statuses(3, path, key)).containsExactly(200, 429, 429);

        console.open("/console/live");
        String gateway = "tr[data-gateway-id=\"gateway-1\"]";
        // the rules service reads the gateway every tollgate.live.step (10 s): its health comes with the first read
        browser.until(gateway + " on the version in force, store up, breaker closed", LIVE, d -> !browser.all(gateway).isEmpty()
                && browser.visible(gateway + " .rules-version").getText().contains(Long.toString(stack.rulesVersion()))
                && browser.visible(gateway + " .store").getText().equals("up")
                && browser.visible(gateway + " .breaker").getText().equals("closed"));
        String row = "table#decisions tr[data-rule-id=\"" + ruleId + "\"]";
        browser.until("the rule's rejections", LIVE, d -> !browser.all(row).isEmpty()
                && number(browser.visible(row + " .rejected")) >= 2);
        assertThat(number(browser.visible(row + " .allowed"))).isGreaterThanOrEqualTo(1);
        browser.until("the client among the top rejected", LIVE,
                d -> !browser.all("#top-rejected tr[data-rule-id=\"" + ruleId + "\"][data-client=\"" + sha256(key) + "\"]")
                        .isEmpty());
        browser.present("svg#decisions-plot");
        String updated = browser.visible("#live-updated").getText();
        browser.until("a refresh without a reload", LIVE, d -> !browser.visible("#live-updated").getText().equals(updated));
        browser.screenshot("console-13-live");
    }

    @Test
    @Order(7)
    void explainShowsWhatRemainsAndSpendsNothing() {
        String ruleId = "console.explain";
        String path = limitedPerHour(ruleId, "/explain", 5);
        String key = Fleet.freshKey("console-explain");
        assertThat(statuses(2, path, key)).containsExactly(200, 200);

        console.open("/console/explain");
        String row = "table#explain-result tr[data-rule-id=\"" + ruleId + "\"]";
        List<Long> shown = new ArrayList<>();
        for (int ask = 1; ask <= 2; ask++) {
            new Select(browser.visible("select#explain-method")).selectByVisibleText("GET");
            browser.type("input#explain-path", path);
            browser.type("input#explain-key", key);
            // the rows of the last answer go, so the ones waited for are this answer's
            browser.script("document.querySelectorAll('table#explain-result tr[data-rule-id]').forEach(r => r.remove())");
            browser.click("button#explain-submit");
            shown.add(number(browser.visible(row + " .remaining")));
            assertThat(number(browser.visible(row + " .limit"))).isEqualTo(5);
            assertThat(browser.visible(row + " .source").getText()).contains("rule");
        }
        browser.screenshot("console-14-explain");
        long remaining = explained(key, path, ruleId).path("remaining").asLong();
        // whole tokens: 3 after two of 5, or 2 when the explain's clock reads a hair before the last spend
        assertThat(remaining).as("the gateway's own explain after two requests").isBetween(2L, 3L);
        assertThat(shown).as("remaining as the console showed it, asked twice").containsExactly(remaining, remaining);
        assertThat(stack.call(0, "GET", path, key).statusCode()).as("a request spends a token").isEqualTo(200);
        assertThat(explained(key, path, ruleId).path("remaining").asLong()).isEqualTo(remaining - 1);
    }

    @Test
    @Order(9)
    void everyPageMarksItselfReadyOnceItsDataIsShown() {
        String id = "console.ready";
        stack.putRule(id, Rules.perApiKey(id, "/ready/**", 5, "1m", "closed"));
        new Directory(stack).putTenant("ready-tenant", "{\"label\": \"Ready Inc\"}");
        // per page, a script true once its data is shown (the new-rule, import and explain pages load none)
        Map<String, String> shown = new LinkedHashMap<>();
        shown.put("/console/rules", "document.querySelector('tr[data-rule-id=\"" + id + "\"]') !== null");
        shown.put("/console/rules/new", "document.querySelector('input[name=id]') !== null");
        shown.put("/console/rules/" + id + "/edit", "document.querySelector('input[name=limit]').value === '5'");
        shown.put("/console/rules/" + id + "/history", "document.querySelectorAll('li[data-revision]').length === 1");
        shown.put("/console/import", "document.querySelector('#dry-run') !== null");
        shown.put("/console/clients", "document.querySelector('#override-rule option[value=\"" + id + "\"]') !== null");
        shown.put("/console/tenants/ready-tenant", "document.querySelector('#tenant-label').textContent === 'Ready Inc'");
        shown.put("/console/explain", "document.querySelector('#explain-form') !== null");
        shown.put("/console/live", "document.querySelector('#live-updated').hasAttribute('datetime')"
                + " || !document.querySelector('#live-error').hidden");
        shown.forEach((page, data) -> {
            console.open(page);
            // read in the same script that finds the mark: what the page showed when it said it was ready
            Object atMark = browser.until(page + " marked console-ready", d -> browser.script(
                    "if (!performance.getEntriesByName('console-ready', 'mark').length) return null;"
                            + " return (" + data + ") ? 'shown' : 'not shown';"));
            assertThat(atMark).as("%s at its mark: %s", page, data).isEqualTo("shown");
        });
    }

    @Test
    @Order(8)
    void aWriteWithoutTheSessionOrWithAWrongCsrfTokenIsRefusedAndChangesNothing() {
        console.open("/console/rules");
        String session = Console.SESSION_COOKIE + "=" + console.session();
        String csrf = console.csrfToken();
        String id = "console.csrf";
        String url = stack.rulesService().url("/api/v1/rules/" + id);
        String body = Rules.perApiKey(id, "/csrf/**", 5, "1m", "closed");
        String kept = "console.csrf.kept";
        long before = stack.putRule(kept, Rules.perApiKey(kept, "/kept/**", 5, "1m", "closed"));

        Map<String, Map<String, String>> refused = new LinkedHashMap<>();
        refused.put("no session", Map.of());
        refused.put("the session without a CSRF token", Map.of("Cookie", session));
        refused.put("the session with a wrong CSRF token", Map.of("Cookie", session, "X-CSRF-Token", csrf + "x"));
        refused.put("a wrong session with the CSRF token",
                Map.of("Cookie", Console.SESSION_COOKIE + "=forged", "X-CSRF-Token", csrf));
        refused.forEach((how, headers) -> {
            Map<String, String> request = new LinkedHashMap<>(headers);
            request.put("Content-Type", "application/json");
            HttpResponse<String> answer = Http.send("PUT", url, request, body);
            assertThat(answer.statusCode()).as("%s: %s", how, answer.body()).isIn(401, 403);
            assertThat(answer.headers().firstValue("Content-Type")).as(how).hasValueSatisfying(
                    type -> assertThat(type).startsWith("application/problem+json"));
            if (how.contains("CSRF token") && !how.startsWith("a wrong session")) {
                assertThat(answer.statusCode()).as(how).isEqualTo(403);
                assertThat(json(answer).path("type").asText()).as(how).isEqualTo("csrf");
            }
        });
        assertThat(Http.send("DELETE", stack.rulesService().url("/api/v1/rules/" + kept),
                Map.of("Cookie", session), null).statusCode()).as("a delete without the CSRF token").isEqualTo(403);
        assertThat(stack.rulesVersion()).as("the version after the refused writes").isEqualTo(before);
        assertThat(rule(id).statusCode()).isEqualTo(404);
        assertThat(rule(kept).statusCode()).isEqualTo(200);

        // the same write with the session and its token is the console's own: it goes through
        HttpResponse<String> accepted = Http.send("PUT", url,
                Map.of("Cookie", session, "X-CSRF-Token", csrf, "Content-Type", "application/json"), body);
        assertThat(accepted.statusCode()).as(accepted.body()).isEqualTo(201);
        HttpResponse<String> page = Http.get(stack.rulesService().url("/console/rules"), Map.of());
        assertThat(page.statusCode()).as("a console page without the session").isEqualTo(303);
        assertThat(page.headers().firstValue("Location")).hasValueSatisfying(
                location -> assertThat(location).endsWith("/console/login"));
    }

    /**
     * Puts rule {@code ruleId}, {@code limit} an hour per API key on {@code prefix/**}, waits until the gateway applies
     * it, and returns a path it limits.
     */
    private static String limitedPerHour(String ruleId, String prefix, long limit) {
        stack.putRule(ruleId, Rules.perApiKey(ruleId, prefix + "/**", limit, "1h", "closed"));
        Fleet.awaitEverywhere(stack, ruleId, prefix + "/x", Duration.ofSeconds(10));
        return prefix + "/x";
    }

    /** The statuses of {@code n} GETs of {@code path} with {@code key} through the gateway, one after another. */
    private static List<Integer> statuses(int n, String path, String key) {
        return IntStream.range(0, n).mapToObj(i -> stack.call(0, "GET", path, key).statusCode()).toList();
    }

    /** The body of a GET of the rules service's API with the admin token. */
    private static String admin(String path) {
        return Http.get(stack.rulesService().url(path), Map.of("Authorization", "Bearer " + Stack.ADMIN_TOKEN)).body();
    }

    private static HttpResponse<String> rule(String id) {
        return Http.get(stack.rulesService().url("/api/v1/rules/" + id), Stack.ADMIN);
    }

    /** What gateway 1's own explain says of rule {@code ruleId} for a GET of {@code path} with {@code key}. */
    private static JsonNode explained(String key, String path, String ruleId) {
        HttpResponse<String> answer = stack.operation(0, "GET", "/tollgate/explain?method=GET&path=" + path, key);
        for (JsonNode rule : json(answer).path("rules")) {
            if (rule.path("id").asText().equals(ruleId)) {
                return rule;
            }
        }
        throw new IllegalStateException("the gateway's explain names no " + ruleId + ": " + answer.body());
    }

    /** The first whole number a cell shows ("1,204" is 1204; "5 per 1h, burst 5" is 5), -1 for none. */
    private static long number(WebElement cell) {
        Matcher first = Pattern.compile("\\d[\\d,]*").matcher(cell.getText());
        return first.find() ? Long.parseLong(first.group().replace(",", "")) : -1;
    }

    private static JsonNode json(HttpResponse<String> answer) {
        try {
            return JSON.readTree(answer.body());
        } catch (Exception e) {
            throw new IllegalStateException(answer.statusCode() + " not JSON: " + answer.body(), e);
        }
    }

    private static String sha256(String key) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
