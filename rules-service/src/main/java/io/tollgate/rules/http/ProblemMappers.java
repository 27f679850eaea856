package io.tollgate.rules.http;

import java.util.List;

import jakarta.inject.Singleton;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;

import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.tollgate.rules.domain.FieldError;
import io.tollgate.rules.domain.RuleValidationException;
import io.tollgate.rules.store.EntryRejectedException;
import io.tollgate.rules.store.ImportRejectedException;
import io.tollgate.rules.store.WriteRejectedException;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerResponse;

/** Turns every failure into an RFC 9457 {@code application/problem+json} answer. */
@Singleton
public class ProblemMappers {

    private static final Logger LOG = Logger.getLogger(ProblemMappers.class);

    private final ObjectMapper mapper;

    ProblemMappers(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    @ServerExceptionMapper
    Response invalid(RuleValidationException e) {
        return answer(invalid("The rule is not valid", 400, e.errors()));
    }

    @ServerExceptionMapper
    Response rejected(WriteRejectedException e) {
        return answer(of(e));
    }

    @ServerExceptionMapper
    Response unfit(EntryRejectedException e) {
        return answer(invalid("The entry is not valid", 422, e.errors()));
    }

    private static Problem invalid(String title, int status, List<FieldError> errors) {
        return new Problem("validation-failed", title, status,
                errors.size() + " field(s) rejected; nothing was changed", errors);
    }

    @ServerExceptionMapper
    Response badLines(ImportRejectedException e) {
        return answer(of(e));
    }

    /** The problem of a refused write. */
    static Problem of(WriteRejectedException e) {
        return switch (e.reason()) {
            case NOT_FOUND -> new Problem("not-found", "Not found", 404, e.getMessage());
            case CONFLICT -> new Problem("conflict", "Conflict", 409, e.getMessage() + "; nothing was changed");
            case PRECONDITION_FAILED -> new Problem("precondition-failed", "If-Match does not hold", 412,
                    e.getMessage() + "; nothing was changed");
        };
    }

    /** The problem of a bulk import with bad lines. */
    public static Problem of(ImportRejectedException e) {
        return new Problem("validation-failed", "The import has bad lines", 422, e.errorCount()
                + " error(s)" + (e.errorCount() > e.errors().size() ? ", the first " + e.errors().size() + " listed" : "")
                + "; nothing was changed", e.errors());
    }

    @ServerExceptionMapper
    Response problem(ProblemException e) {
        Response.ResponseBuilder builder = builder(e.problem());
        e.headers().forEach(builder::header);
        return builder.build();
    }

    @ServerExceptionMapper
    Response web(WebApplicationException e) {
        Response.StatusType status = e.getResponse().getStatusInfo();
        return answer(new Problem(slug(status.getReasonPhrase()), status.getReasonPhrase(), status.getStatusCode(),
                e.getMessage()));
    }

    @ServerExceptionMapper
    Response unexpected(Exception e) {
        LOG.error("unexpected failure", e);
        return answer(new Problem("internal-error", "Internal error", 500, "see the rules service's log"));
    }

    /** Sends {@code problem} as the whole answer on the Vert.x router, with its status, as problem+json. */
    public void send(HttpServerResponse response, Problem problem) {
        response.setStatusCode(problem.status())
                .putHeader(HttpHeaders.CONTENT_TYPE, Headers.PROBLEM_JSON)
                .end(json(problem));
    }

    Response answer(Problem problem) {
        return builder(problem).build();
    }

    private Response.ResponseBuilder builder(Problem problem) {
        return Response.status(problem.status()).type(Headers.PROBLEM_JSON).entity(json(problem));
    }

    String json(Problem problem) {
        try {
            return mapper.writeValueAsString(problem);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a problem always serialises", e);
        }
    }

    private static String slug(String phrase) {
        return phrase == null ? "error" : phrase.toLowerCase(java.util.Locale.ROOT).replace(' ', '-');
    }
}
