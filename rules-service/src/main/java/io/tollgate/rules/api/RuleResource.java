package io.tollgate.rules.api;

import java.util.List;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.eclipse.microprofile.openapi.annotations.Operation;

import io.smallrye.mutiny.Uni;
import io.tollgate.rules.auth.AdminTokens;
import io.tollgate.rules.auth.Needs;
import io.tollgate.rules.domain.FieldError;
import io.tollgate.rules.domain.Rule;
import io.tollgate.rules.domain.RuleValidationException;
import io.tollgate.rules.domain.Scope;
import io.tollgate.rules.http.Bodies;
import io.tollgate.rules.http.ETags;
import io.tollgate.rules.http.Headers;
import io.tollgate.rules.store.Revision;
import io.tollgate.rules.store.RuleStore;
import io.tollgate.rules.store.WriteRejectedException;
import io.tollgate.rules.store.WriteRejectedException.Reason;

/** One rule: read, create or replace, delete, and its history. */
@Path("/api/v1/rules/{id}")
@Produces(MediaType.APPLICATION_JSON)
public class RuleResource {

    private final RuleStore store;
    private final Bodies bodies;
    private final AdminTokens tokens;

    RuleResource(RuleStore store, Bodies bodies, AdminTokens tokens) {
        this.store = store;
        this.bodies = bodies;
        this.tokens = tokens;
    }

    @GET
    @Needs(Scope.READ)
    @Operation(summary = "One rule, with the version at which it last changed as its ETag")
    public Uni<Response> get(@PathParam("id") String id, @HeaderParam(Headers.IF_NONE_MATCH) String ifNoneMatch) {
        return store.find(id)
                .map(found -> found.orElseThrow(() -> notFound(id)))
                .map(stored -> ETags.read(ifNoneMatch, stored.version(), stored.rule()));
    }

    @PUT
    @Needs(Scope.ADMIN)
    @Consumes(MediaType.WILDCARD)
    @Operation(summary = "Create (201) or replace (200) a rule; If-Match honoured (412)")
    public Uni<Response> put(@PathParam("id") String id, byte[] body,
            @HeaderParam(HttpHeaders.CONTENT_TYPE) String contentType,
            @HeaderParam(HttpHeaders.AUTHORIZATION) String authorization,
            @HeaderParam(Headers.IF_MATCH) String ifMatch) {
        String actor = tokens.actorFor(authorization);
        Rule rule = bodies.rule(body, contentType);
        if (!id.equals(rule.id())) {
            throw new RuleValidationException(List.of(new FieldError("id", rule.id(), "must equal the id in the path, " + id)));
        }
        return store.put(rule, actor, ETags.ifMatch(ifMatch))
                .map(outcome -> ETags.written(outcome.created(), outcome.stored().version(), outcome.stored().rule()));
    }

    @DELETE
    @Needs(Scope.ADMIN)
    @Operation(summary = "Delete a rule: 204, or 404; If-Match honoured (412)")
    public Uni<Response> delete(@PathParam("id") String id,
            @HeaderParam(HttpHeaders.AUTHORIZATION) String authorization,
            @HeaderParam(Headers.IF_MATCH) String ifMatch) {
        String actor = tokens.actorFor(authorization);
        return store.delete(id, actor, ETags.ifMatch(ifMatch)).map(version -> Response.noContent().build());
    }

    @GET
    @Path("history")
    @Needs(Scope.READ)
    @Operation(summary = "Every revision of the rule, oldest first: who, when, what")
    public Uni<Response> history(@PathParam("id") String id) {
        return store.history(id)
                .map(revisions -> Response.ok(new History(id, WriteRejectedException.found(revisions, "rule " + id)))
                        .build());
    }

    /** The answer of {@code GET /rules/{id}/history}. */
    record History(String id, List<Revision> revisions) {
    }

    private static WriteRejectedException notFound(String id) {
        return new WriteRejectedException(Reason.NOT_FOUND, "no rule " + id);
    }
}
