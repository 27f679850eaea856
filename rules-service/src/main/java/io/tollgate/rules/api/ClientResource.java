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
import io.tollgate.rules.domain.ClientEntry;
import io.tollgate.rules.domain.Scope;
import io.tollgate.rules.http.ApiKeys;
import io.tollgate.rules.http.Bodies;
import io.tollgate.rules.http.ETags;
import io.tollgate.rules.http.Headers;
import io.tollgate.rules.http.Paging;
import io.tollgate.rules.store.DirectoryListing;
import io.tollgate.rules.store.DirectoryListing.ClientSummary;
import io.tollgate.rules.store.DirectoryRevision;
import io.tollgate.rules.store.DirectoryStore;
import io.tollgate.rules.store.StoredEntry;
import io.tollgate.rules.store.WriteRejectedException;
import io.tollgate.rules.store.WriteRejectedException.Reason;

/**
 * The clients of the directory: one by its API key, which only the {@code X-API-Key} header carries (digested at
 * once: a key in a URL ends up in access logs, so a path naming one is refused), or by that key's digest; their
 * history, and a paged listing. The bulk import ({@code PUT /api/v1/clients}, NDJSON) is {@link ClientImportRoute}.
 */
@Path("/api/v1/clients")
@Produces(MediaType.APPLICATION_JSON)
public class ClientResource {

    static final int DEFAULT_PAGE = 100;
    static final int MAX_PAGE = 1_000;
    /** A key's digest as the directory keeps it: SHA-256, 64 lower-case hex digits. */
    static final String DIGEST = "[0-9a-f]{64}";
    /** A raw key in the path, and anything below it. */
    private static final String KEY_IN_PATH = "{key: .+}";

    private final DirectoryStore store;
    private final DirectoryListing listing;
    private final Bodies bodies;
    private final AdminTokens tokens;

    ClientResource(DirectoryStore store, DirectoryListing listing, Bodies bodies, AdminTokens tokens) {
        this.store = store;
        this.listing = listing;
        this.bodies = bodies;
        this.tokens = tokens;
    }

    /** A client as answered: its digest, then its entry's fields. */
    record ClientView(String digest, @JsonUnwrapped ClientEntry entry) {

        static ClientView of(StoredEntry<ClientEntry> stored) {
            return new ClientView(stored.name(), stored.entry());
        }
    }

    /** A page of the listing; {@code next} is absent on the last page. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record ClientList(List<ClientSummary> clients, String next) {
    }

    /** The answer of {@code GET /clients/key/history} and {@code /clients/digest/{sha256}/history}. */
    record History(String digest, List<DirectoryRevision<ClientEntry>> revisions) {
    }

    @GET
    @Needs(Scope.GATEWAY)
    @Operation(summary = "The clients (of one tenant, with tenant=; or those named by digest=, repeated), by digest, "
            + "a page at a time: digests and labels")
    public Uni<ClientList> list(@QueryParam("tenant") String tenant, @QueryParam("cursor") String cursor,
            @QueryParam("limit") String limit, @QueryParam("digest") List<String> digests) {
        if (digests != null && !digests.isEmpty()) {
            return listing.clients(Paging.digests(digests, tenant, cursor, MAX_PAGE)).map(found -> new ClientList(found, null));
        }
        return listing.clients(tenant, Paging.after(cursor), Paging.limit("limit", limit, DEFAULT_PAGE, MAX_PAGE))
                .map(page -> new ClientList(page.items(), Paging.cursor(page.last())));
    }

    @GET
    @Path("key")
    @Needs(Scope.READ)
    @Operation(summary = "One client, by its API key in the X-API-Key header: its digest and entry, with its seq as ETag")
    public Uni<Response> get(@HeaderParam(ApiKeys.HEADER) String key,
            @HeaderParam(Headers.IF_NONE_MATCH) String ifNoneMatch) {
        return read(ApiKeys.digest(key), ifNoneMatch);
    }

    @PUT
    @Path("key")
    @Needs(Scope.ADMIN)
    @Consumes(MediaType.WILDCARD)
    @Operation(summary = "Create (201) or replace (200) a client by its API key in the X-API-Key header; If-Match "
            + "honoured (412); 422 naming each bad field")
    public Uni<Response> put(@HeaderParam(ApiKeys.HEADER) String key, byte[] body,
            @HeaderParam(HttpHeaders.AUTHORIZATION) String authorization,
            @HeaderParam(Headers.IF_MATCH) String ifMatch) {
        String actor = tokens.actorFor(authorization);
        return write(ApiKeys.digest(key), body, actor, ifMatch);
    }

    @DELETE
    @Path("key")
    @Needs(Scope.ADMIN)
    @Operation(summary = "Delete a client by its API key in the X-API-Key header: 204, or 404; If-Match honoured (412)")
    public Uni<Response> delete(@HeaderParam(ApiKeys.HEADER) String key,
            @HeaderParam(HttpHeaders.AUTHORIZATION) String authorization,
            @HeaderParam(Headers.IF_MATCH) String ifMatch) {
        return remove(ApiKeys.digest(key), tokens.actorFor(authorization), ifMatch);
    }

    @GET
    @Path("key/history")
    @Needs(Scope.READ)
    @Operation(summary = "Every revision of the client whose API key the X-API-Key header carries, oldest first")
    public Uni<History> history(@HeaderParam(ApiKeys.HEADER) String key) {
        return historyOf(ApiKeys.digest(key));
    }

    @GET
    @Path("digest/{digest: " + DIGEST + "}")
    @Needs(Scope.READ)
    @Operation(summary = "One client, by the SHA-256 (hex) of its API key, for callers that never hold the key")
    public Uni<Response> getByDigest(@PathParam("digest") String digest,
            @HeaderParam(Headers.IF_NONE_MATCH) String ifNoneMatch) {
        return read(digest, ifNoneMatch);
    }

    @PUT
    @Path("digest/{digest: " + DIGEST + "}")
    @Needs(Scope.ADMIN)
    @Consumes(MediaType.WILDCARD)
    @Operation(summary = "Create (201) or replace (200) a client by the SHA-256 (hex) of its API key; If-Match honoured")
    public Uni<Response> putByDigest(@PathParam("digest") String digest, byte[] body,
            @HeaderParam(HttpHeaders.AUTHORIZATION) String authorization,
            @HeaderParam(Headers.IF_MATCH) String ifMatch) {
        return write(digest, body, tokens.actorFor(authorization), ifMatch);
    }

    @DELETE
    @Path("digest/{digest: " + DIGEST + "}")
    @Needs(Scope.ADMIN)
    @Operation(summary = "Delete a client by the SHA-256 (hex) of its API key: 204, or 404; If-Match honoured (412)")
    public Uni<Response> deleteByDigest(@PathParam("digest") String digest,
            @HeaderParam(HttpHeaders.AUTHORIZATION) String authorization,
            @HeaderParam(Headers.IF_MATCH) String ifMatch) {
        return remove(digest, tokens.actorFor(authorization), ifMatch);
    }

    @GET
    @Path("digest/{digest: " + DIGEST + "}/history")
    @Needs(Scope.READ)
    @Operation(summary = "Every revision of the client of this SHA-256 (hex), oldest first: who, when, what")
    public Uni<History> historyByDigest(@PathParam("digest") String digest) {
        return historyOf(digest);
    }

    /**
     * A raw key in the path ({@code /clients/<key>} and below), as an older form of these calls took it: refused,
     * saying where the key goes. A resource method per HTTP method rather than a sub-resource locator, so that each
     * declares its access and the access check runs before it (it does not before a locator).
     */
    @GET
    @Path(KEY_IN_PATH)
    @Needs(Scope.READ)
    @Operation(hidden = true) // refused: the key-in-the-path form is not offered
    public Response readKeyInPath() {
        throw ApiKeys.inUrl();
    }

    @PUT
    @Path(KEY_IN_PATH)
    @Needs(Scope.ADMIN)
    @Operation(hidden = true) // refused: the key-in-the-path form is not offered
    public Response putKeyInPath() {
        throw ApiKeys.inUrl();
    }

    @DELETE
    @Path(KEY_IN_PATH)
    @Needs(Scope.ADMIN)
    @Operation(hidden = true) // refused: the key-in-the-path form is not offered
    public Response deleteKeyInPath() {
        throw ApiKeys.inUrl();
    }

    private Uni<Response> read(String digest, String ifNoneMatch) {
        return store.client(digest)
                .map(found -> found.orElseThrow(() -> notFound(digest)))
                .map(stored -> ETags.read(ifNoneMatch, stored.seq(), ClientView.of(stored)));
    }

    private Uni<Response> remove(String digest, String actor, String ifMatch) {
        return store.deleteClient(digest, actor, ETags.ifMatch(ifMatch)).map(seq -> Response.noContent().build());
    }

    private Uni<History> historyOf(String digest) {
        return store.clientHistory(digest)
                .map(revisions -> new History(digest, WriteRejectedException.found(revisions, "client " + digest)));
    }

    private Uni<Response> write(String digest, byte[] body, String actor, String ifMatch) {
        return store.putClient(digest, bodies.client(body), actor, ETags.ifMatch(ifMatch))
                .map(put -> ETags.written(put.created(), put.stored().seq(), ClientView.of(put.stored())));
    }

    private static WriteRejectedException notFound(String digest) {
        return new WriteRejectedException(Reason.NOT_FOUND, "no client " + digest);
    }
}
