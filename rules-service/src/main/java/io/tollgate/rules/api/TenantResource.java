package io.tollgate.rules.api;

import java.util.ArrayList;
import java.util.List;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.eclipse.microprofile.openapi.annotations.Operation;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonUnwrapped;

import io.smallrye.mutiny.Uni;
import io.tollgate.rules.auth.AdminTokens;
import io.tollgate.rules.auth.Needs;
import io.tollgate.rules.domain.FieldError;
import io.tollgate.rules.domain.RuleValidator;
import io.tollgate.rules.domain.Scope;
import io.tollgate.rules.domain.TenantEntry;
import io.tollgate.rules.http.Bodies;
import io.tollgate.rules.http.ETags;
import io.tollgate.rules.http.Headers;
import io.tollgate.rules.http.Paging;
import io.tollgate.rules.store.DirectoryListing;
import io.tollgate.rules.store.DirectoryRevision;
import io.tollgate.rules.store.DirectoryStore;
import io.tollgate.rules.store.EntryRejectedException;
import io.tollgate.rules.store.StoredEntry;
import io.tollgate.rules.store.WriteRejectedException;
import io.tollgate.rules.store.WriteRejectedException.Reason;

/** The tenants of the directory: one by id, their history, and a paged listing. */
@Path("/api/v1/tenants")
@Produces(MediaType.APPLICATION_JSON)
public class TenantResource {

    private final DirectoryStore store;
    private final DirectoryListing listing;
    private final Bodies bodies;
    private final AdminTokens tokens;

    TenantResource(DirectoryStore store, DirectoryListing listing, Bodies bodies, AdminTokens tokens) {
        this.store = store;
        this.listing = listing;
        this.bodies = bodies;
        this.tokens = tokens;
    }

    /** A tenant as answered: its id, then its entry's fields. */
    record TenantView(String id, @JsonUnwrapped TenantEntry entry) {

        static TenantView of(StoredEntry<TenantEntry> stored) {
            return new TenantView(stored.name(), stored.entry());
        }
    }

    /** A page of the listing; {@code next} is absent on the last page. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record TenantList(List<TenantView> tenants, String next) {
    }

    /** The answer of {@code GET /tenants/{id}/history}. */
    record History(String id, List<DirectoryRevision<TenantEntry>> revisions) {
    }

    @GET
    @Needs(Scope.READ)
    @Operation(summary = "The tenants, by id, a page at a time")
    public Uni<TenantList> list(@QueryParam("cursor") String cursor, @QueryParam("limit") String limit) {
        return listing.tenants(Paging.after(cursor),
                Paging.limit("limit", limit, ClientResource.DEFAULT_PAGE, ClientResource.MAX_PAGE))
                .map(page -> new TenantList(
                        page.items().stream().map(t -> new TenantView(t.id(), t.entry())).toList(),
                        Paging.cursor(page.last())));
    }

    @GET
    @Path("{id}")
    @Needs(Scope.READ)
    @Operation(summary = "One tenant, with its seq as ETag")
    public Uni<Response> get(@PathParam("id") String id, @HeaderParam(Headers.IF_NONE_MATCH) String ifNoneMatch) {
        return store.tenant(id)
                .map(found -> found.orElseThrow(() -> notFound(id)))
                .map(stored -> ETags.read(ifNoneMatch, stored.seq(), TenantView.of(stored)));
    }

    @PUT
    @Path("{id}")
    @Needs(Scope.ADMIN)
    @Consumes(MediaType.WILDCARD)
    @Operation(summary = "Create (201) or replace (200) a tenant; If-Match honoured (412); 422 naming each bad field")
    public Uni<Response> put(@PathParam("id") String id, byte[] body,
            @HeaderParam(HttpHeaders.AUTHORIZATION) String authorization,
            @HeaderParam(Headers.IF_MATCH) String ifMatch) {
        String actor = tokens.actorFor(authorization);
        return store.putTenant(id, entry(id, body), actor, ETags.ifMatch(ifMatch))
                .map(put -> ETags.written(put.created(), put.stored().seq(), TenantView.of(put.stored())));
    }

    @DELETE
    @Path("{id}")
    @Needs(Scope.ADMIN)
    @Operation(summary = "Delete a tenant: 204, 404, or 409 while it has clients; If-Match honoured (412)")
    public Uni<Response> delete(@PathParam("id") String id,
            @HeaderParam(HttpHeaders.AUTHORIZATION) String authorization,
            @HeaderParam(Headers.IF_MATCH) String ifMatch) {
        String actor = tokens.actorFor(authorization);
        return store.deleteTenant(id, actor, ETags.ifMatch(ifMatch)).map(seq -> Response.noContent().build());
    }

    @GET
    @Path("{id}/history")
    @Needs(Scope.READ)
    @Operation(summary = "Every revision of the tenant, oldest first: who, when, what")
    public Uni<History> history(@PathParam("id") String id) {
        return store.tenantHistory(id)
                .map(revisions -> new History(id, WriteRejectedException.found(revisions, "tenant " + id)));
    }

    /** The entry in {@code body} for tenant {@code id}; 422 naming every bad field, the id's among them. */
    private TenantEntry entry(String id, byte[] body) {
        List<FieldError> errors = new ArrayList<>();
        if (!RuleValidator.ID.matcher(id).matches()) {
            errors.add(new FieldError("id", id, "must match " + RuleValidator.ID_REGEX));
        }
        try {
            TenantEntry entry = bodies.tenant(body);
            if (errors.isEmpty()) {
                return entry;
            }
        } catch (EntryRejectedException e) {
            errors.addAll(e.errors());
        }
        throw new EntryRejectedException(errors);
    }

    private static WriteRejectedException notFound(String id) {
        return new WriteRejectedException(Reason.NOT_FOUND, "no tenant " + id);
    }
}
