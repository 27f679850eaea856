package io.tollgate.rules.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Method;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Pattern;

import org.jboss.resteasy.reactive.server.core.Deployment;
import org.jboss.resteasy.reactive.server.handlers.ClassRoutingHandler;
import org.jboss.resteasy.reactive.server.handlers.RestInitialHandler;
import org.jboss.resteasy.reactive.server.mapping.RequestMapper;
import org.jboss.resteasy.reactive.server.mapping.RuntimeResource;
import org.jboss.resteasy.reactive.server.spi.ServerRestHandler;
import org.junit.jupiter.api.Test;

import io.quarkus.resteasy.reactive.server.runtime.ResteasyReactiveRecorder;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.tollgate.rules.Api;
import io.tollgate.rules.TestDatabase;
import io.tollgate.rules.domain.PathSpellings;
import io.tollgate.rules.domain.Scope;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.Route;

/**
 * Every endpoint of the running service, as its router and its REST deployment list them (not a list of this
 * test's), declares its access, and every caller gets what that declaration says, however the path is spelled: no
 * token 401, a wrong token 403 (429 once its address spent its allowance), a scope too weak 403, a scope that covers
 * the call through the door (whatever the endpoint then answers: the calls carry bodies and parameters each endpoint
 * refuses, so nothing changes); a console page without a session goes to the login form. Each path is also sent
 * respelled: a {@code ;} parameter in any segment is 400, and no other spelling opens a door to a caller its
 * declaration keeps out.
 */
@QuarkusTest
@WithTestResource(value = TestDatabase.class, scope = TestResourceScope.GLOBAL)
class EveryEndpointTest {

    /**
     * Parameters every endpoint that reads one refuses, so that no call does anything: a client key in the query
     * ({@code api_key=}) refuses every call a caller's scope lets through before its endpoint runs.
     */
    private static final String QUERY = "?since=x&limit=x&n=x&api_key=x";
    /** Each spelling of a client key in a query, and the parameter the refusal names. */
    private static final Map<String, String> KEYS_IN_QUERY = Map.of(
            "?api_key=ak-in-url", "api_key",
            "?header.X-Customer=ak-in-url", "header.X-Customer",
            "?api%5Fkey=ak-in-url", "api_key",
            "?method=GET&path=/x&header.X-API-Key=ak-in-url", "header.X-API-Key");
    private static final Map<String, String> CALLERS = callers();
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .followRedirects(HttpClient.Redirect.NEVER).connectTimeout(Duration.ofSeconds(5)).build();

    /** One endpoint: a method (null for every method), a path to call it at, what it declares, where it is. */
    record Endpoint(String method, String path, Access access, String where) {

        @Override
        public String toString() {
            return (method == null ? "*" : method) + " " + path + " (" + where + ", " + access + ")";
        }
    }

    /** One call's answer. */
    record Answer(int status, String type, String location) {
    }

    @Test
    void everyEndpointDeclaresItsAccessAndEveryCallerGetsWhatItSays() throws Exception {
        List<Endpoint> endpoints = new ArrayList<>(restEndpoints());
        endpoints.removeIf(e -> e.where().startsWith(UndeclaredProbe.class.getSimpleName()));
        endpoints.addAll(routerEndpoints());
        assertThat(endpoints).as("endpoints found").hasSizeGreaterThan(30);
        assertThat(endpoints).filteredOn(e -> e.access() == null).as("endpoints that declare no access").isEmpty();

        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<List<String>>> checked = new ArrayList<>();
            for (Endpoint endpoint : endpoints) {
                for (String method : endpoint.method() == null ? List.of("GET", "PUT") : List.of(endpoint.method())) {
                    checked.add(pool.submit(() -> check(endpoint, method)));
                }
            }
            List<String> wrong = new ArrayList<>();
            for (Future<List<String>> f : checked) {
                wrong.addAll(f.get());
            }
            assertThat(wrong).as("answers that do not match the declared access").isEmpty();
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void everyEndpointRefusesAClientKeyInItsQuery() throws Exception {
        List<Endpoint> endpoints = new ArrayList<>(restEndpoints());
        endpoints.removeIf(e -> e.where().startsWith(UndeclaredProbe.class.getSimpleName()));
        endpoints.addAll(routerEndpoints());
        assertThat(endpoints).extracting(Endpoint::path).as("the calls that take a key")
                .contains("/api/v1/clients/key", "/api/v1/clients/key/history", "/api/v1/explain");
        List<String> wrong = new ArrayList<>();
        for (Endpoint endpoint : endpoints) {
            for (String method : endpoint.method() == null ? List.of("GET", "PUT") : List.of(endpoint.method())) {
                for (Map.Entry<String, String> spelling : KEYS_IN_QUERY.entrySet()) {
                    HttpResponse<String> answer = send(method, endpoint.path() + spelling.getKey(), Api.ADMIN);
                    String body = answer.body();
                    boolean right = endpoint.access() == Access.CONSOLE_PAGE
                            ? toLogin(answer(answer)) // no session: the door comes first
                            : answer.statusCode() == 415 // a body of a type it does not take: it never ran
                                    || answer.statusCode() == 400 && "key-in-url".equals(answer(answer).type())
                                            && body.contains("\"field\":\"" + spelling.getValue() + "\"");
                    if (!right || body.contains("ak-in-url")) {
                        wrong.add(method + " " + endpoint + spelling.getKey() + ": " + answer.statusCode() + " " + body);
                    }
                }
            }
        }
        assertThat(wrong).as("calls that took a key in the query, or repeated it").isEmpty();
    }

    @Test
    void anEndpointThatDeclaresNothingIsRefusedToEveryone() throws Exception {
        assertThat(restEndpoints()).filteredOn(e -> e.where().startsWith(UndeclaredProbe.class.getSimpleName()))
                .singleElement().satisfies(e -> assertThat(e.access()).isNull());
        for (String authorization : CALLERS.values()) {
            Answer answer = call("GET", "/api/v1/undeclared-probe", authorization);
            assertThat(answer.status()).as("as %s", authorization).isEqualTo(403);
            assertThat(answer.type()).isEqualTo("undeclared");
        }
    }

    /** Every call of one endpoint and method, as each caller, at the path and at its respellings: what went wrong. */
    private static List<String> check(Endpoint endpoint, String method) throws IOException, InterruptedException {
        List<String> wrong = new ArrayList<>();
        for (Map.Entry<String, String> caller : CALLERS.entrySet()) {
            Answer answer = call(method, endpoint.path(), caller.getValue());
            String expected = expected(endpoint.access(), method, caller.getKey(), answer);
            if (expected != null) {
                wrong.add(method + " " + endpoint + " as " + caller.getKey() + ": " + answer + ", expected " + expected);
            }
            for (String spelling : PathSpellings.of(endpoint.path())) {
                Answer respelled = call(method, spelling, caller.getValue());
                String refused = respelledExpected(endpoint.access(), method, caller.getKey(), spelling, respelled);
                if (refused != null) {
                    wrong.add(method + " " + spelling + " (" + endpoint + ") as " + caller.getKey() + ": " + respelled
                            + ", expected " + refused);
                }
            }
        }
        return wrong;
    }

    /** What is wrong with the answer to the path as declared; null when it is right. */
    private static String expected(Access access, String method, String caller, Answer answer) {
        if (answer.status() >= 500 && answer.status() != 503) {
            return "no server error";
        }
        switch (access) {
            case PUBLIC :
                return null;
            case CONSOLE_PAGE :
                return toLogin(answer) ? null : "303 to the login form";
            default :
                break;
        }
        Scope needed = access.needed(HttpMethod.valueOf(method));
        return switch (caller) {
            case "no token" -> answer.status() == 401 ? null : "401";
            case "wrong token" -> answer.status() == 403 || answer.status() == 429 ? null : "403 or 429";
            default -> {
                boolean covers = Access.covers(Scope.valueOf(caller.toUpperCase(Locale.ROOT)), needed);
                if (covers) {
                    yield answer.status() == 401 || answer.status() == 403 || answer.status() == 429
                            ? "the door open: needs " + needed
                            : null;
                }
                yield answer.status() == 403 && "insufficient-scope".equals(answer.type())
                        ? null
                        : "403 insufficient-scope: needs " + needed;
            }
        };
    }

    /** What is wrong with the answer to a respelled path; null when it is right. */
    private static String respelledExpected(Access access, String method, String caller, String spelling,
            Answer answer) {
        if (spelling.indexOf(';') >= 0) {
            return answer.status() == 400 && "path-parameter".equals(answer.type()) ? null : "400 path-parameter";
        }
        if (answer.status() >= 500 && answer.status() != 503) {
            return "no server error";
        }
        boolean mayEnter = switch (access) {
            case PUBLIC -> true;
            case CONSOLE_PAGE -> false;
            default -> !caller.equals("no token") && !caller.equals("wrong token")
                    && Access.covers(Scope.valueOf(caller.toUpperCase(Locale.ROOT)),
                            access.needed(HttpMethod.valueOf(method)));
        };
        if (mayEnter) {
            return null;
        }
        boolean shut = List.of(401, 403, 404, 405, 429).contains(answer.status()) || toLogin(answer);
        return shut ? null : "a shut door (401, 403, 404, 405, 429, or 303 to the login form)";
    }

    private static boolean toLogin(Answer answer) {
        return answer.status() == 303 && answer.location() != null
                && ConsolePage.LOGIN.equals(URI.create(answer.location()).getPath());
    }

    private static Answer call(String method, String path, String authorization)
            throws IOException, InterruptedException {
        return answer(send(method, path + QUERY, authorization));
    }

    private static HttpResponse<String> send(String method, String pathAndQuery, String authorization)
            throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + RestAssured.port + pathAndQuery)).timeout(Duration.ofSeconds(20));
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        if (method.equals("GET") || method.equals("DELETE")) {
            request.method(method, HttpRequest.BodyPublishers.noBody());
        } else {
            request.header("Content-Type", "application/json")
                    .method(method, HttpRequest.BodyPublishers.ofString("not json"));
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static Answer answer(HttpResponse<String> response) {
        String type = null;
        if (response.headers().firstValue("Content-Type").orElse("").startsWith("application/problem+json")) {
            var matcher = Pattern.compile("\"type\"\\s*:\\s*\"([^\"]*)\"").matcher(response.body());
            type = matcher.find() ? matcher.group(1) : null;
        }
        return new Answer(response.statusCode(), type, response.headers().firstValue("Location").orElse(null));
    }

    /** Every REST resource method of the running deployment, with a path that reaches it. */
    static List<Endpoint> restEndpoints() {
        Deployment deployment = ResteasyReactiveRecorder.getCurrentDeployment();
        List<Endpoint> out = new ArrayList<>();
        for (RequestMapper.RequestPath<RestInitialHandler.InitialMatch> classPath : deployment.getClassMappers()) {
            for (ServerRestHandler handler : classPath.value.handlers) {
                if (handler instanceof ClassRoutingHandler routing) {
                    routing.getMappers().forEach((method, mapper) -> {
                        for (RequestMapper.RequestPath<RuntimeResource> methodPath : mapper.getTemplates()) {
                            RuntimeResource resource = methodPath.value;
                            Method java = resource.getLazyMethod().getResourceMethod();
                            String template = classPath.template.template + methodPath.template.template;
                            if (template.length() > 1 && template.endsWith("/")) {
                                template = template.substring(0, template.length() - 1);
                            }
                            out.add(new Endpoint(method, example(template), Access.declaredBy(java),
                                    java.getDeclaringClass().getSimpleName() + "." + java.getName()));
                        }
                    });
                }
            }
        }
        return out;
    }

    /**
     * Every route of the running router that is an endpoint. Every other route with a path of its own must be an
     * edge (it passes every request on): the routes without one are the framework's (the REST deployment's, whose
     * endpoints {@link #restEndpoints} lists, and the HTTP server's own handlers).
     */
    static List<Endpoint> routerEndpoints() {
        List<Endpoint> out = new ArrayList<>();
        List<String> unknown = new ArrayList<>();
        for (Route route : RoutesSeen.router().getRoutes()) {
            Access access = route.getMetadata(Endpoints.ACCESS);
            if (access != null) {
                String path = route.isRegexPath() ? fromRegex(route) : route.getPath().replace("*", "x/any");
                if (route.methods() == null || route.methods().isEmpty()) {
                    out.add(new Endpoint(null, path, access, "router"));
                } else {
                    route.methods().forEach(m -> out.add(new Endpoint(m.name(), path, access, "router")));
                }
            } else if (!Boolean.TRUE.equals(route.getMetadata(Endpoints.EDGE)) && route.getPath() != null
                    && !route.getPath().equals("/")) {
                unknown.add(route.getPath() + " " + route.methods());
            }
        }
        assertThat(unknown).as("routes that are neither an endpoint nor an edge").isEmpty();
        return out;
    }

    private static String fromRegex(Route route) {
        String regex = route.getName();
        String path = regex.replace("^", "").replace("$", "");
        assertThat(Pattern.matches(regex, path)).as("a path for %s", regex).isTrue();
        return path;
    }

    /** A path the template matches: each parameter given a value its pattern (if any) takes. */
    static String example(String template) {
        StringBuilder out = new StringBuilder();
        int i = 0;
        while (i < template.length()) {
            char c = template.charAt(i);
            if (c != '{') {
                out.append(c);
                i++;
                continue;
            }
            int depth = 0;
            int end = i;
            for (; end < template.length(); end++) {
                depth += template.charAt(end) == '{' ? 1 : template.charAt(end) == '}' ? -1 : 0;
                if (depth == 0) {
                    break;
                }
            }
            String parameter = template.substring(i + 1, end);
            int colon = parameter.indexOf(':');
            String name = (colon < 0 ? parameter : parameter.substring(0, colon)).strip();
            String value = switch (name) {
                case "digest" -> "a".repeat(64);
                case "page" -> "rules";
                default -> "probe-" + name;
            };
            if (colon >= 0) {
                String pattern = parameter.substring(colon + 1).strip();
                assertThat(Pattern.matches(pattern, value)).as("%s for {%s}", value, parameter).isTrue();
            }
            out.append(value);
            i = end + 1;
        }
        return out.toString();
    }

    private static Map<String, String> callers() {
        Map<String, String> callers = new java.util.LinkedHashMap<>();
        callers.put("no token", null);
        callers.put("wrong token", "Bearer not-one-of-the-tokens");
        callers.put("gateway", Api.GATEWAY);
        callers.put("read", Api.READ);
        callers.put("admin", Api.ADMIN);
        return callers;
    }
}
