package com.example.shop.generated;

public class GeneratedRejection extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public GeneratedRejection(String message) {
    super(message);
  }
}
