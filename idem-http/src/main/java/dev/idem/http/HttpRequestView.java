package dev.idem.http;

import java.util.List;

/**
 * What idem-http reads of a request: its header fields. An adapter per server implements it ({@code
 * dev.idem.http.jdk.JdkHttpServer} for the JDK's HttpServer, {@code dev.idem.http.servlet.ServletHttp} for Jakarta
 * Servlet), or a lambda over any other framework's request.
 */
@FunctionalInterface
public interface HttpRequestView {

  /**
   * @param name a header field name, matched case-insensitively
   * @return every value of the field, one entry per field line as received (empty if absent)
   */
  List<String> headerValues(String name);
}
