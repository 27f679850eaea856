package io.tollgate.rules.api;

import java.net.URI;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.eclipse.microprofile.openapi.annotations.Operation;

import io.smallrye.mutiny.Uni;
import io.tollgate.rules.auth.AdminTokens;
import io.tollgate.rules.auth.Needs;
import io.tollgate.rules.domain.Scope;
import io.tollgate.rules.http.Bodies;
import io.tollgate.rules.http.ETags;
import io.tollgate.rules.http.Headers;
import io.tollgate.rules.store.RuleSetImport;
import io.tollgate.rules.store.RuleStore;

/** The rule set as a whole: list (polled by gateways), create one rule, declarative import. */
@Path("/api/v1/rules")
@Produces(MediaType.APPLICATION_JSON)
public class RuleSetResource {

    private final RuleStore store;
    private final RuleSetImport importer;
    private final Bodies bodies;
    private final AdminTokens tokens;

    RuleSetResource(RuleStore store, RuleSetImport importer, Bodies bodies, AdminTokens tokens) {
        this.store = store;
        this.importer = importer;
        this.bodies = bodies;
        this.tokens = tokens;
    }

    @GET
    @Needs(Scope.GATEWAY)
    @Operation(summary = "Every rule and the version; 304 when If-None-Match names the current version")
    public Uni<Response> list(@HeaderParam(Headers.IF_NONE_MATCH) String ifNoneMatch) {
        if (ifNoneMatch == null) {
            return all();
        }
        // the cheap path gateways take every poll: one single-row read, no rule parsed
        return store.version()
                .chain(version -> ETags.noneMatchHits(ifNoneMatch, version)
                        ? Uni.createFrom().item(Response.notModified().header(Headers.ETAG, ETags.of(version)).build())
                        : all());
    }

    @POST
    @Needs(Scope.ADMIN)
    @Consumes(MediaType.WILDCARD)
    @Operation(summary = "Create a rule (JSON or YAML); 409 if the id exists")
    public Uni<Response> create(byte[] body, @HeaderParam(HttpHeaders.CONTENT_TYPE) String contentType,
            @HeaderParam(HttpHeaders.AUTHORIZATION) String authorization) {
        String actor = tokens.actorFor(authorization);
        return store.create(bodies.rule(body, contentType), actor)
                .map(stored -> Response.created(URI.create("/api/v1/rules/" + stored.rule().id()))
                        .header(Headers.ETAG, ETags.of(stored.version()))
                        .entity(stored.rule())
                        .build());
    }

    @PUT
    @Needs(Scope.ADMIN)
    @Consumes(MediaType.WILDCARD)
    @Operation(summary = "Replace the whole rule set in one version (JSON or YAML); dry_run=true only reports")
    public Uni<Response> replaceAll(byte[] body, @HeaderParam(HttpHeaders.CONTENT_TYPE) String contentType,
            @HeaderParam(HttpHeaders.AUTHORIZATION) String authorization,
            @HeaderParam(Headers.IF_MATCH) String ifMatch, @QueryParam("dry_run") boolean dryRun) {
        String actor = tokens.actorFor(authorization);
        return importer.apply(bodies.rules(body, contentType), actor, dryRun, ETags.ifMatch(ifMatch))
                .map(result -> Response.ok(result).header(Headers.ETAG, ETags.of(result.version())).build());
    }

    private Uni<Response> all() {
        return store.all().map(set -> Response.ok(set).header(Headers.ETAG, ETags.of(set.version())).build());
    }
}
