package dev.idem.examples;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** What a {@code main} prints on {@code System.out}, line by line. */
final class PrintedBy {

  private PrintedBy() {}

  static synchronized List<String> main(Runnable main) {
    PrintStream original = System.out;
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
    try {
      main.run();
    } finally {
      System.setOut(original);
    }
    String text = printed.toString(StandardCharsets.UTF_8);
    original.print(text); // still visible in the test's output
    return text.lines().toList();
  }
}
