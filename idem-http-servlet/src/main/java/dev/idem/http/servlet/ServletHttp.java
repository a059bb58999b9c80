package dev.idem.http.servlet;

import dev.idem.http.HttpReply;
import dev.idem.http.HttpRequestView;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;

/**
 * Adapts Jakarta Servlet 6, inside a servlet's {@code doPost} (or a Spring MVC / JAX-RS resource running on a
 * servlet container):
 * <pre>{@code
 * HttpReply reply = requests.handle(ServletHttp.request(request), request.getUserPrincipal().getName(),
 *     (client, key) -> payments.create(client, key, newPayment), payment -> HttpReply.json(201, json(payment)));
 * ServletHttp.send(response, reply);
 * }</pre>
 */
public final class ServletHttp {

  private ServletHttp() {}

  /**
   * @param request the servlet request
   * @return a view of its headers
   */
  public static HttpRequestView request(HttpServletRequest request) {
    return name -> {
      Enumeration<String> values = request.getHeaders(name); // containers match names case-insensitively
      if (values == null || !values.hasMoreElements()) {
        return List.of();
      }
      // Almost every field has one line: no ArrayList for it (Collections.list's), on every request.
      String first = values.nextElement();
      if (!values.hasMoreElements()) {
        return List.of(first);
      }
      List<String> all = new ArrayList<>();
      all.add(first);
      while (values.hasMoreElements()) {
        all.add(values.nextElement());
      }
      return all;
    };
  }

  /**
   * Writes the reply to the response; the container commits it when the servlet returns.
   *
   * @param response the servlet response, not yet committed
   * @param reply the reply
   * @throws IOException if the client went away
   */
  public static void send(HttpServletResponse response, HttpReply reply) throws IOException {
    response.setStatus(reply.status());
    // Without headers()' map and body()'s copy: both are per response, and a replay answered from idem's cache
    // does little else.
    reply.forEachHeader(response::setHeader);
    int length = reply.bodyLength();
    response.setContentLength(length);
    if (length > 0) {
      reply.writeBody(response.getOutputStream());
    }
  }
}
