import{d as a}from"./chunks/chunk-2LZ4AND3.js";a();
