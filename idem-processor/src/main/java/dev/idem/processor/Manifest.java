package dev.idem.processor;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What the manifest of one service lists about each of its commands, written as JSON by {@link ManifestWriter}
 * and read back from a previous build by {@link PreviousManifests}. A command is identified by its scope: the
 * scope is what stored records are found by.
 *
 * @param service the qualified name of the service interface
 * @param commands its commands and batch handlers, in declaration order
 */
record Manifest(String service, List<Command> commands) {

  Manifest {
    commands = List.copyOf(commands);
  }

  /** The resource of a service's manifest; one per interface, so that each has exactly one originating element. */
  static String resourceName(String service) {
    return "META-INF/idem/" + service + ".json";
  }

  /**
   * @param resultType the declared type, for people
   * @param resultShape the type as the codec writes and reads it; a change means stored records read back wrong
   * @param resultShapeHash what the runtime stores with each record, 16 hex characters of the shape's SHA-256
   */
  record Command(String scope, String method, List<String> keyParts, List<String> payload, String resultType,
                 String resultShape, String resultShapeHash, String mode, String retention) {

    Command {
      keyParts = List.copyOf(keyParts);
      payload = List.copyOf(payload);
    }
  }

  static Manifest of(ServiceModel model) {
    List<Command> commands = new ArrayList<>();
    for (MethodModel method : model.methods()) {
      CommandMethod command = method instanceof BatchMethod batch ? batch.command()
          : method instanceof CommandMethod plain ? plain : null;
      if (command == null) {
        continue;
      }
      CodecTypeReader.Shape shape = method instanceof BatchMethod ? CodecTypeReader.VOID : command.resultShape();
      commands.add(new Command(command.scope(), command.method().getSimpleName().toString(),
          CommandSpecWriter.displayNames(command.keyParts()), command.payloadParameters(),
          method instanceof BatchMethod ? "void" : command.returnType().toString(), shape.text(), shape.hash(),
          command.mode().name(), command.retention()));
    }
    return new Manifest(model.type().getQualifiedName().toString(), commands);
  }

  /** Pretty-printed JSON, keys in a fixed order, so that the file diffs well when kept in a repository. */
  String toJson() {
    StringBuilder json = new StringBuilder("{\n  \"service\": ").append(quote(service))
        .append(",\n  \"commands\": [");
    String separator = "\n";
    for (Command command : commands) {
      json.append(separator).append("    {\n")
          .append("      \"scope\": ").append(quote(command.scope())).append(",\n")
          .append("      \"method\": ").append(quote(command.method())).append(",\n")
          .append("      \"keyParts\": ").append(array(command.keyParts())).append(",\n")
          .append("      \"payload\": ").append(array(command.payload())).append(",\n")
          .append("      \"resultType\": ").append(quote(command.resultType())).append(",\n")
          .append("      \"resultShape\": ").append(quote(command.resultShape())).append(",\n")
          .append("      \"resultShapeHash\": ").append(quote(command.resultShapeHash())).append(",\n")
          .append("      \"mode\": ").append(quote(command.mode())).append(",\n")
          .append("      \"retention\": ").append(quote(command.retention())).append("\n")
          .append("    }");
      separator = ",\n";
    }
    return json.append(commands.isEmpty() ? "]\n}\n" : "\n  ]\n}\n").toString();
  }

  /** Reads what {@link #toJson()} wrote (any JSON with these members, in fact). */
  @SuppressWarnings("unchecked")
  static Manifest fromJson(String text) {
    Map<String, Object> root = (Map<String, Object>) new Json(text).value();
    List<Command> commands = new ArrayList<>();
    for (Object element : (List<Object>) root.get("commands")) {
      Map<String, Object> command = (Map<String, Object>) element;
      commands.add(new Command((String) command.get("scope"), (String) command.get("method"),
          (List<String>) command.get("keyParts"), (List<String>) command.get("payload"),
          (String) command.get("resultType"), (String) command.get("resultShape"),
          (String) command.get("resultShapeHash"), (String) command.get("mode"), (String) command.get("retention")));
    }
    return new Manifest((String) root.get("service"), commands);
  }

  private static String array(List<String> values) {
    List<String> quoted = new ArrayList<>(values.size()); // a loop: no lambda to link in each cold compile
    for (String value : values) {
      quoted.add(quote(value));
    }
    return "[" + String.join(", ", quoted) + "]";
  }

  private static String quote(String value) {
    StringBuilder quoted = new StringBuilder("\"");
    for (char c : value.toCharArray()) {
      switch (c) {
        case '"' -> quoted.append("\\\"");
        case '\\' -> quoted.append("\\\\");
        case '\n' -> quoted.append("\\n");
        default -> {
          if (c < 0x20) {
            quoted.append(String.format("\\u%04x", (int) c));
          } else {
            quoted.append(c);
          }
        }
      }
    }
    return quoted.append('"').toString();
  }
}
