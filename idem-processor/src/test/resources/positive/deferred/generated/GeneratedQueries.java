package com.example.shop.generated;

public interface GeneratedQueries {

  String status(String parcelId);
}
