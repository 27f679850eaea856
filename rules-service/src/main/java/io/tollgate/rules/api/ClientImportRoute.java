package io.tollgate.rules.api;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.jboss.logging.Logger;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.tollgate.rules.auth.Caller;
import io.tollgate.rules.auth.Endpoints;
import io.tollgate.rules.config.RulesConfig;
import io.tollgate.rules.domain.DirectoryCodec;
import io.tollgate.rules.domain.Scope;
import io.tollgate.rules.http.ApiKeys;
import io.tollgate.rules.http.Paging;
import io.tollgate.rules.http.Problem;
import io.tollgate.rules.http.ProblemException;
import io.tollgate.rules.http.ProblemMappers;
import io.tollgate.rules.store.ClientImport;
import io.tollgate.rules.store.ImportRejectedException;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * {@code PUT /api/v1/clients} with {@code Content-Type: application/x-ndjson}: the bulk import, one client entry
 * with its {@code key} per line, all-or-nothing ({@code ?dry_run=true}: checked and counted, nothing changed).
 * Written on the Vert.x router, ahead of the 64 KiB limit and Quarkus's body handling, so that the body
 * (a million lines is some 80 MB) streams through {@link NdjsonSource} instead of being held whole; its bounds
 * are {@code tollgate.directory.import-max-lines} and {@code import-max-body}.
 */
@ApplicationScoped
class ClientImportRoute {

    static final String PATH = "/api/v1/clients";
    static final String NDJSON = "application/x-ndjson";
    private static final Logger LOG = Logger.getLogger(ClientImportRoute.class);

    private final ClientImport importer;
    private final Endpoints endpoints;
    private final ProblemMappers problems;
    private final ObjectMapper mapper;
    private final ImportLines lines;
    private final RulesConfig.Directory limits;
    private final Vertx vertx;

    ClientImportRoute(ClientImport importer, Endpoints endpoints, ProblemMappers problems, ObjectMapper mapper,
            DirectoryCodec codec, RulesConfig config, Vertx vertx) {
        this.importer = importer;
        this.endpoints = endpoints;
        this.problems = problems;
        this.mapper = mapper;
        this.lines = new ImportLines(codec);
        this.limits = config.directory();
        this.vertx = vertx;
    }

    void install(@Observes Router router) {
        // an empty key: not the listing, nor the import
        endpoints.needs(router.routeWithRegex("^" + PATH + "/$").order(-151), Scope.READ,
                ctx -> answer(ctx, ApiKeys.missing()));
        endpoints.needs(router.put(PATH).order(-150), Scope.ADMIN, this::importClients);
    }

    /** Whether {@code request} is this route's, so the 64 KiB limit of every other body leaves it alone. */
    static boolean owns(HttpServerRequest request) {
        return request.method() == HttpMethod.PUT && PATH.equals(request.path());
    }

    static ProblemException tooLarge(String detail) {
        return new ProblemException(new Problem("payload-too-large", "Import too large", 413,
                detail + "; nothing was changed"));
    }

    private void importClients(RoutingContext ctx) {
        HttpServerRequest request = ctx.request();
        request.pause();
        try {
            String actor = Caller.of(ctx).actor();
            String type = request.getHeader(HttpHeaders.CONTENT_TYPE);
            if (type == null || !type.toLowerCase(java.util.Locale.ROOT).startsWith(NDJSON)) {
                throw new ProblemException(new Problem("unsupported-media-type", "Unsupported media type", 415,
                        "a bulk import is " + NDJSON + ": one client entry with its key per line"));
            }
            long length = Paging.whole("Content-Length", request.getHeader(HttpHeaders.CONTENT_LENGTH), 0, 0,
                    Long.MAX_VALUE);
            if (length > limits.importMaxBody().asLongValue()) {
                throw tooLarge("the body is larger than " + limits.importMaxBody().asLongValue() + " bytes");
            }
            boolean dryRun = Boolean.parseBoolean(request.getParam("dry_run"));
            Context context = vertx.getOrCreateContext();
            NdjsonSource source = new NdjsonSource(request, context, lines, limits.importMaxLines(),
                    limits.importMaxBody().asLongValue());
            importer.run(source, actor, dryRun).subscribe().with(
                    result -> context.runOnContext(v -> ctx.response()
                            .putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                            .end(json(result))),
                    failure -> context.runOnContext(v -> fail(ctx, failure)));
        } catch (ProblemException e) {
            fail(ctx, e);
        }
    }

    private void fail(RoutingContext ctx, Throwable failure) {
        if (failure instanceof ProblemException e) {
            e.headers().forEach(ctx.response()::putHeader);
            answer(ctx, e.problem());
        } else if (failure instanceof ImportRejectedException e) {
            answer(ctx, ProblemMappers.of(e));
        } else {
            LOG.error("client import failed", failure);
            answer(ctx, new Problem("internal-error", "Internal error", 500, "see the rules service's log"));
        }
    }

    private void answer(RoutingContext ctx, Problem problem) {
        if (!ctx.request().isEnded()) {
            // the rest of the body is not wanted: the connection cannot carry another request after it
            ctx.response().putHeader(HttpHeaders.CONNECTION, "close");
        }
        problems.send(ctx.response(), problem);
    }

    private String json(Object value) {
        try {
            return mapper.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("an import result always serialises", e);
        }
    }
}
